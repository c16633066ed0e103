import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RetryEvent, Skillport, SkillportError } from "../../src/client/index.js";
import {
  awayFromMinuteBoundary,
  freePort,
  limitHeaders,
  serverErrors,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import { startTcpProxy } from "../contract/tcp-proxy.js";

/** What a call threw (the test fails if it did not throw). */
async function rejectionOf(promise: Promise<unknown>): Promise<SkillportError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(SkillportError);
    return err as SkillportError;
  }
  throw new Error("expected the call to reject");
}

/** Every execution of `owner`'s key for one skill, read straight from the server. */
async function executionsOf(server: TestServer, secret: string, skillId: string) {
  const lister = new Skillport({ apiKey: secret, baseUrl: server.baseUrl });
  try {
    const records = [];
    for await (const page of lister.listExecutions({ skill_id: skillId, limit: 100 }))
      records.push(...page.data);
    return records;
  } finally {
    await lister.close();
  }
}

describe("client retries against the real server", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    const errors = server ? serverErrors(server) : [];
    await server?.stop();
    expect(errors).toEqual([]);
  });

  it("never retries 400, 401, 403, 404, 409 or 422: each call is one request", async () => {
    const key = await server.createKey({ plan: "enterprise", limitMinute: 10_000, limitDay: 1_000_000 });
    const readOnlyKey = await server.createRoomyKey({ scope: "read-only" });
    const retries: RetryEvent[] = [];
    const onRetry = (event: RetryEvent) => retries.push(event);
    const client = new Skillport({ apiKey: key.secret, baseUrl: server.baseUrl, onRetry });
    const readOnly = new Skillport({ apiKey: readOnlyKey.secret, baseUrl: server.baseUrl, onRetry });
    const stranger = new Skillport({ apiKey: "sk_live_notarealkey", baseUrl: server.baseUrl, onRetry });
    try {
      // Every request with a valid key counts once in its minute window: the count of
      // requests the server saw is the drop in X-RateLimit-Remaining.
      await awayFromMinuteBoundary(20);
      const remainingBefore = limitHeaders(
        await server.request("GET", "/v1/skills", { key: key.secret }),
      ).remaining;
      const done = await client.execute({ skill_id: "math.evaluate", params: { expression: "1" } });
      const refusals = [
        await rejectionOf(client.execute({ skill_id: "math.evaluate", params: {}, timeout_ms: 0 })),
        await rejectionOf(client.execute({ skill_id: "no.such.skill", params: {} })),
        await rejectionOf(client.getSkill("no.such.skill")),
        await rejectionOf(client.getExecution("exec_unknown")),
        await rejectionOf(client.cancelExecution(done.id)),
        await rejectionOf(client.execute({ skill_id: "math.evaluate", params: { expression: 1 } })),
      ];
      await client.execute(
        { skill_id: "math.evaluate", params: { expression: "2" } },
        { idempotencyKey: "reused-key" },
      );
      refusals.push(
        await rejectionOf(
          client.execute(
            { skill_id: "math.evaluate", params: { expression: "3" } },
            { idempotencyKey: "reused-key" },
          ),
        ),
      );
      const remainingAfter = limitHeaders(
        await server.request("GET", "/v1/skills", { key: key.secret }),
      ).remaining;
      expect(refusals.map((err) => [err.status, err.code])).toEqual([
        [400, "invalid_request"],
        [404, "skill_not_found"],
        [404, "skill_not_found"],
        [404, "execution_not_found"],
        [409, "execution_not_cancellable"],
        [422, "invalid_params"],
        [422, "idempotency_key_reused"],
      ]);
      // 1 (the headers read) + 1 + 6 + 1 + 1 requests: no refusal was sent twice.
      expect(remainingBefore - remainingAfter).toBe(1 + 1 + 6 + 1 + 1);

      const unauthorized = await rejectionOf(stranger.discover({ query: "anything" }));
      expect([unauthorized.status, unauthorized.code]).toEqual([401, "invalid_api_key"]);
      const forbidden = await rejectionOf(readOnly.execute({ skill_id: "math.evaluate", params: {} }));
      expect([forbidden.status, forbidden.code]).toEqual([403, "insufficient_scope"]);
      expect(retries).toEqual([]);
    } finally {
      await Promise.all([client.close(), readOnly.close(), stranger.close()]);
    }
  });

  it("after a connection dropped mid-request, the retry returns the first record and the skill ran once", async () => {
    const key = await server.createRoomyKey({ owner: "dropped-fast" });
    const proxy = await startTcpProxy(server.baseUrl, (index) =>
      index === 0 ? "cut-after-request" : "forward",
    );
    const retries: RetryEvent[] = [];
    const client = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      onRetry: (e) => retries.push(e),
    });
    try {
      const text = `sent once ${Date.now()}`;
      const record = await client.execute({ skill_id: "message.send", params: { channel: "drops", text } });
      expect(record).toMatchObject({ status: "completed", success: true });
      expect(retries[0]?.error.code).toBe("connection_error");
      expect(proxy.connections).toBeGreaterThanOrEqual(2);

      const executions = await executionsOf(server, key.secret, "message.send");
      expect(executions.map((execution) => execution.id)).toEqual([record.id]);
      const listed = await client.execute({ skill_id: "message.list", params: { channel: "drops" } });
      const messages = (listed.result?.messages ?? []) as { text: string }[];
      expect(messages.filter((message) => message.text === text)).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it("after a connection dropped while the skill still runs, the client waits for that run instead of starting another", async () => {
    const key = await server.createRoomyKey({ owner: "dropped-slow" });
    const proxy = await startTcpProxy(server.baseUrl, (index) =>
      index === 0 ? "cut-after-request" : "forward",
    );
    const retries: RetryEvent[] = [];
    const client = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      onRetry: (e) => retries.push(e),
    });
    try {
      const record = await client.execute({ skill_id: "util.wait", params: { ms: 1_500 } });
      expect(record).toMatchObject({ status: "completed", success: true, result: { waited_ms: 1_500 } });
      expect(retries[0]?.error.code).toBe("connection_error");
      // Later retries, if any, can only have met the first run still in progress.
      for (const retry of retries.slice(1)) expect(retry.error.code).toBe("idempotency_in_progress");
      const executions = await executionsOf(server, key.secret, "util.wait");
      expect(executions.map((execution) => execution.id)).toEqual([record.id]);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it("retries a refused connection maxRetries times, then throws connection_error", async () => {
    const port = await freePort();
    const retries: RetryEvent[] = [];
    const client = new Skillport({
      apiKey: "sk_live_whatever",
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 2,
      onRetry: (event) => retries.push(event),
    });
    try {
      const err = await rejectionOf(client.discover({ query: "anything" }));
      expect(err.code).toBe("connection_error");
      expect(err.status).toBeUndefined();
      expect(retries.map((retry) => [retry.retry, retry.error.code, retry.method, retry.path])).toEqual([
        [1, "connection_error", "POST", "/v1/discover"],
        [2, "connection_error", "POST", "/v1/discover"],
      ]);
    } finally {
      await client.close();
    }
  });
});
