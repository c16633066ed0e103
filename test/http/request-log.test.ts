import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { echo, sleep } from "../core/test-skills.js";
import { testHttpServerOptions } from "./http-server-options.js";

/** The server's "request" lines, as it writes them. */
function requestLines() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as Record<string, unknown>;
      if (line.msg === "request") lines.push(line);
      done();
    },
  });
  return { logger: createLogger("info", sink), lines };
}

// Audit 22, operations #9: a request line named neither the client's address (the
// failed-authentication limit counts per address, but its 401s and 429s said not whose) nor
// the execution it made or named, so an operator given an `exec_…` id could not find it.
describe("request log lines", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const setUp = async (trustProxy: false | number) => {
    const log = requestLines();
    const core = await makeCore([echo, sleep], { clock: systemClock });
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey();
    const server = buildHttpServer(core.skillport, { ...testHttpServerOptions(log.logger), trustProxy });
    cleanups.push(() => server.close());
    server.open();
    const request = (
      method: "GET" | "POST",
      url: string,
      extra: { payload?: object; headers?: object } = {},
    ) =>
      server.app.inject({
        method,
        url,
        remoteAddress: "10.0.0.5",
        ...(extra.payload && { payload: extra.payload }),
        headers: { authorization: `Bearer ${secret}`, "x-forwarded-for": "203.0.113.7", ...extra.headers },
      });
    const lastLine = () => log.lines.at(-1);
    return { request, lastLine, server, secret, lines: log.lines };
  };

  it("name the execution an execute made and the one an :id route names", async () => {
    const { request, lastLine } = await setUp(false);
    const ran = await request("POST", "/v1/execute", {
      payload: { skill_id: "test.echo", params: { text: "a" } },
    });
    const { id } = ran.json() as { id: string };
    expect(lastLine()).toMatchObject({ path: "/v1/execute", status: 200, execution_id: id });

    const queued = await request("POST", "/v1/execute", {
      payload: { skill_id: "test.sleep", params: { ms: 60_000 }, async: true },
    });
    const asyncId = (queued.json() as { id: string }).id;
    expect(lastLine()).toMatchObject({ status: 202, execution_id: asyncId });
    await request("POST", `/v1/executions/${asyncId}/cancel`);
    expect(lastLine()).toMatchObject({ path: "/v1/executions/:id/cancel", execution_id: asyncId });
    await request("GET", `/v1/executions/${asyncId}`);
    expect(lastLine()).toMatchObject({ path: "/v1/executions/:id", execution_id: asyncId });
    await request("GET", `/v1/executions/${asyncId}/events`);
    expect(lastLine()).toMatchObject({ path: "/v1/executions/:id/events", execution_id: asyncId });

    const streamed = await request("POST", "/v1/execute", {
      payload: { skill_id: "test.echo", params: { text: "b" } },
      headers: { accept: "text/event-stream" },
    });
    const streamedId = /"id":"(exec_[^"]+)"/.exec(streamed.body)?.[1];
    expect(streamedId).toBeDefined();
    expect(lastLine()).toMatchObject({ path: "/v1/execute", execution_id: streamedId });

    await request("GET", "/v1/skills");
    expect(lastLine()).not.toHaveProperty("execution_id");
  });

  // Found by the operations audit (session 39): a 429 for the key's rate limit named no key,
  // and an execute refused by the per-key cap named an execution that was never made.
  it("name the key refused for its rate limit, and no execution for an execute a cap refused", async () => {
    const log = requestLines();
    const core = await makeCore([echo, sleep], { clock: systemClock, maxConcurrentPerKey: 1 });
    cleanups.push(core.cleanup);
    const server = buildHttpServer(core.skillport, testHttpServerOptions(log.logger));
    cleanups.push(() => server.close());
    server.open();
    const send = (secret: string, payload?: object) =>
      server.app.inject({
        method: payload ? "POST" : "GET",
        url: payload ? "/v1/execute" : "/v1/skills",
        headers: { authorization: `Bearer ${secret}` },
        ...(payload && { payload }),
      });

    const limited = await core.createKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 100 } });
    expect((await send(limited.secret)).statusCode).toBe(200);
    expect((await send(limited.secret)).statusCode).toBe(429);
    expect(log.lines.at(-1)).toMatchObject({ status: 429, key_id: limited.key.id });

    const capped = await core.createKey();
    const running = await send(capped.secret, {
      skill_id: "test.sleep",
      params: { ms: 60_000 },
      async: true,
    });
    expect(running.statusCode).toBe(202);
    const refused = await send(capped.secret, { skill_id: "test.sleep", params: { ms: 10 }, async: true });
    expect(refused.statusCode).toBe(429);
    expect(log.lines.at(-1)).toMatchObject({ status: 429, key_id: capped.key.id });
    expect(log.lines.at(-1)).not.toHaveProperty("execution_id");
  });

  // Audit 23 (changes #14): only answered requests were logged, so an execute its client
  // gave up on (an agent's short HTTP timeout) left no line naming its execution.
  it("are written for a request whose client went away before its answer, once, naming its execution", async () => {
    const { server, secret, lines } = await setUp(false);
    await server.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = server.app.server.address() as AddressInfo;
    const before = lines.length;
    await new Promise<void>((resolve) => {
      const sent = httpRequest({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/execute",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      });
      sent.on("error", () => resolve());
      sent.end(JSON.stringify({ skill_id: "test.sleep", params: { ms: 1500 } }));
      setTimeout(() => {
        sent.destroy();
        resolve();
      }, 300);
    });
    // Long enough for the run to end and its answer to find no one.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const written = lines.slice(before);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      path: "/v1/execute",
      aborted: true,
      ip: "127.0.0.1",
      execution_id: expect.stringMatching(/^exec_/),
    });
  });

  it("name the client's address: the connected peer's without a trusted proxy, the forwarded one with it", async () => {
    const direct = await setUp(false);
    await direct.request("GET", "/v1/skills", { headers: { authorization: "Bearer sk_live_wrong" } });
    expect(direct.lastLine()).toMatchObject({ status: 401, ip: "10.0.0.5" });

    const proxied = await setUp(1);
    await proxied.request("GET", "/v1/skills", { headers: { authorization: "Bearer sk_live_wrong" } });
    expect(proxied.lastLine()).toMatchObject({ status: 401, ip: "203.0.113.7" });
    await proxied.request("GET", "/healthz");
    expect(proxied.lastLine()).toMatchObject({ status: 200, ip: "203.0.113.7" });
  });
});
