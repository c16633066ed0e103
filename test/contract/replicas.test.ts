import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  expectError,
  serverErrors,
  sleep,
  startServer,
  type TestServer,
} from "./harness.js";

// contract.md: "Limits hold across all replicas that share a deployment's store" and "A
// revoked key is refused on its next request, on every replica". Two real processes on
// one data dir are two replicas of the embedded store.
describe("contract: two replicas on one data dir", { timeout: 90_000 }, () => {
  let a: TestServer;
  let b: TestServer;
  let roomy: CreatedKey;

  beforeAll(async () => {
    a = await startServer();
    b = await startServer({ dataDir: a.dataDir });
    roomy = await a.createRoomyKey({ name: "replicas" });
  });
  afterAll(async () => {
    const errors = [a, b].flatMap((server) => (server ? serverErrors(server) : []));
    await b?.stop();
    await a?.stop();
    expect(errors).toEqual([]);
  });

  const discover = (server: TestServer, secret: string) =>
    server.request("POST", "/v1/discover", { key: secret, json: { query: "send a message" } });

  it("a free key gets exactly 60 requests a minute in total across both", async () => {
    const key = await a.createKey({ name: "shared-limit" });
    await awayFromMinuteBoundary(30);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => discover(i % 2 === 0 ? a : b, key.secret)),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(60);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(40);
  });

  it("a key revoked through the CLI is refused on its next request by both", async () => {
    const key = await a.createKey({ name: "revoked-everywhere" });
    expect((await discover(a, key.secret)).status).toBe(200);
    expect((await discover(b, key.secret)).status).toBe(200);
    await a.revokeKey(key.id);
    expectError(await discover(a, key.secret), 401, "invalid_api_key");
    expectError(await discover(b, key.secret), 401, "invalid_api_key");
  });

  it("an execution started on one is readable, and long-pollable to its end, on the other", async () => {
    const res = await a.request("POST", "/v1/execute", {
      key: roomy.secret,
      json: { skill_id: "util.wait", params: { ms: 500 }, async: true },
    });
    expect(res.status).toBe(202);
    const { id } = bodyOf<ExecutionRecord>(res);
    const done = await b.request("GET", `/v1/executions/${id}?wait=15`, { key: roomy.secret });
    expect(done.status, done.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(done)).toMatchObject({ id, status: "completed" });
  });

  it("an execution cancelled through the other replica stays cancelled (terminal records never change)", async () => {
    const res = await a.request("POST", "/v1/execute", {
      key: roomy.secret,
      json: { skill_id: "util.wait", params: { ms: 2_000 }, async: true },
    });
    const { id } = bodyOf<ExecutionRecord>(res);
    await sleep(200);
    const cancel = await b.request("POST", `/v1/executions/${id}/cancel`, { key: roomy.secret });
    expect(cancel.status, cancel.text).toBe(200);
    const cancelled = bodyOf<ExecutionRecord>(cancel);
    expect(cancelled.status).toBe("cancelled");
    // The skill in replica A would have finished by now.
    await sleep(3_000);
    for (const server of [a, b]) {
      const got = await server.request("GET", `/v1/executions/${id}`, { key: roomy.secret });
      expect(bodyOf<ExecutionRecord>(got)).toEqual(cancelled);
    }
  });
});
