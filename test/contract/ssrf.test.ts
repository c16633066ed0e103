import { lookup } from "node:dns/promises";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

// Issue 7, "Security": http.request refuses server-side request forgery in every spelling
// of a loopback target, through the real server: a listener on 127.0.0.1 counts every
// request that reaches it, and none may.
describe("contract: http.request refuses SSRF targets in every encoding", { timeout: 60_000 }, () => {
  let server: TestServer;
  let key: CreatedKey;
  let target: http.Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    target = http.createServer((_req, res) => {
      hits++;
      res.end("internal secret");
    });
    target.listen(0, "127.0.0.1");
    await once(target, "listening");
    port = (target.address() as AddressInfo).port;
    server = await startServer();
    key = await server.createRoomyKey({ name: "ssrf" });
  });
  afterAll(async () => {
    target?.close();
    await stopExpectingNoErrors(server);
  });

  const fetchThrough = async (url: string) =>
    bodyOf<ExecutionRecord>(
      await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "http.request", params: { url }, timeout_ms: 10_000 },
      }),
    );

  const hosts = [
    "127.0.0.1",
    "2130706433", // decimal
    "0x7f000001", // hexadecimal
    "0x7f.0.0.1",
    "017700000001", // octal
    "0177.0.0.1",
    "127.1",
    "127.000.000.001",
    "%31%32%37.0.0.1", // percent-encoded
    "\uff11\uff12\uff17.\uff10.\uff10.\uff11", // full-width digits
    "0",
    "0.0.0.0",
    "[::ffff:127.0.0.1]", // IPv4-mapped IPv6
    "[::ffff:7f00:1]",
    "[0:0:0:0:0:ffff:127.0.0.1]",
    "[::127.0.0.1]", // IPv4-compatible
    "[::1]",
    "[::]",
    "localhost",
    "localhost.",
    "LOCALHOST",
    "api.localhost",
    "user:pass@127.0.0.1",
  ];

  it.each(hosts)("refuses http://%s and never reaches the target", async (host) => {
    const record = await fetchThrough(`http://${host}:${port}/internal`);
    expect(record, JSON.stringify(record)).toMatchObject({
      status: "failed",
      error: { code: "execution_failed" },
    });
    expect(record.error?.message).toMatch(/refused|not allowed|private|loopback|unspecified/i);
    expect(hits).toBe(0);
  });

  it("refuses a DNS name that resolves to a loopback address (this machine's own name)", async (ctx) => {
    const name = hostname();
    const address = (await lookup(name).catch(() => undefined))?.address ?? "";
    if (!/^(127\.|::1$)/.test(address)) ctx.skip();
    const record = await fetchThrough(`http://${name}:${port}/internal`);
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    // Nor does the refusal say what the name resolves to (an internal-DNS oracle).
    expect(record.error?.message).not.toContain(address);
    expect(hits).toBe(0);
  });
});
