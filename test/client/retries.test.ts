import { afterEach, describe, expect, it } from "vitest";
import { type RetryEvent, Skillport } from "../../src/client/index.js";
import {
  awayFromMinuteBoundary,
  limitHeaders,
  serverForSuite,
  type TestServer,
} from "../contract/harness.js";
import { type ConnectionPlan, rawJsonResponse, startTcpProxy, type TcpProxy } from "../contract/tcp-proxy.js";
import { rejectionOf } from "./support.js";

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
  const suiteServer = serverForSuite();
  let proxy: TcpProxy | undefined;
  let behindProxy: Skillport | undefined;
  afterEach(async () => {
    await behindProxy?.close();
    await proxy?.close();
    behindProxy = undefined;
    proxy = undefined;
  });

  /** A client of a fresh owner's key, behind a proxy that cuts its first connection after the request. */
  async function clientWithFirstConnectionCut(owner: string) {
    const server = suiteServer();
    const key = await server.createRoomyKey({ owner });
    proxy = await startTcpProxy(server.baseUrl, (index) => (index === 0 ? "cut-after-request" : "forward"));
    const retries: RetryEvent[] = [];
    behindProxy = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      onRetry: (e) => retries.push(e),
    });
    return { client: behindProxy, retries, proxy, secret: key.secret, server };
  }

  it("never retries 400, 401, 403, 404, 409 or 422: each call is one request", async () => {
    const server = suiteServer();
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
  }, 90_000); // awayFromMinuteBoundary may sleep up to 20 s before the calls

  it("after a connection dropped mid-request, the retry returns the first record and the skill ran once", async () => {
    const { client, retries, proxy, secret, server } = await clientWithFirstConnectionCut("dropped-fast");
    const text = `sent once ${Date.now()}`;
    const record = await client.execute({ skill_id: "message.send", params: { channel: "drops", text } });
    expect(record).toMatchObject({ status: "completed", success: true });
    expect(retries[0]?.error.code).toBe("connection_error");
    expect(proxy.connections).toBeGreaterThanOrEqual(2);

    const executions = await executionsOf(server, secret, "message.send");
    expect(executions.map((execution) => execution.id)).toEqual([record.id]);
    const listed = await client.execute({ skill_id: "message.list", params: { channel: "drops" } });
    const messages = (listed.result?.messages ?? []) as { text: string }[];
    expect(messages.filter((message) => message.text === text)).toHaveLength(1);
  });

  it("after a connection dropped while the skill still runs, the client waits for that run instead of starting another", async () => {
    const { client, retries, secret, server } = await clientWithFirstConnectionCut("dropped-slow");
    const record = await client.execute({ skill_id: "util.wait", params: { ms: 1_500 } });
    expect(record).toMatchObject({ status: "completed", success: true, result: { waited_ms: 1_500 } });
    expect(retries[0]?.error.code).toBe("connection_error");
    // Later retries, if any, can only have met the first run still in progress.
    for (const retry of retries.slice(1)) expect(retry.error.code).toBe("idempotency_in_progress");
    const executions = await executionsOf(server, secret, "util.wait");
    expect(executions.map((execution) => execution.id)).toEqual([record.id]);
  });

  // Regression (audit 26 #7): the README's "pass your own idempotencyKey to find its record
  // again" gave an immediate 409 idempotency_in_progress while the run went on.
  it("an execute repeated with the caller's idempotencyKey while its run goes on waits for that run's record", async () => {
    const server = suiteServer();
    const key = await server.createRoomyKey({ owner: "caller-key-repeat" });
    const retries: RetryEvent[] = [];
    const client = new Skillport({
      apiKey: key.secret,
      baseUrl: server.baseUrl,
      onRetry: (e) => retries.push(e),
    });
    try {
      const request = { skill_id: "util.wait", params: { ms: 2_000 } };
      const idempotencyKey = `repeat-${Date.now()}`;
      const aborted = await client
        .execute(request, { idempotencyKey, signal: AbortSignal.timeout(300) })
        .catch((err: unknown) => err);
      expect((aborted as Error).name).toBe("TimeoutError");
      const record = await client.execute(request, { idempotencyKey });
      expect(record).toMatchObject({ status: "completed", success: true, result: { waited_ms: 2_000 } });
      expect(retries.length).toBeGreaterThan(0);
      for (const retry of retries) expect(retry.error.code).toBe("idempotency_in_progress");
      const executions = await executionsOf(server, key.secret, "util.wait");
      expect(executions.map((execution) => execution.id)).toEqual([record.id]);
    } finally {
      await client.close();
    }
  });

  // The server answers an async repeat 409 while its run goes on (contract.md): an async
  // call is answered at once all the same, with that run's record as it stands.
  it("an async execute repeated with the caller's idempotencyKey while its run goes on resolves with that running record", async () => {
    const server = suiteServer();
    const key = await server.createRoomyKey({ owner: "caller-key-async-repeat" });
    const client = new Skillport({ apiKey: key.secret, baseUrl: server.baseUrl });
    try {
      const request = { skill_id: "util.wait", params: { ms: 3_000 }, async: true };
      const idempotencyKey = `async-repeat-${Date.now()}`;
      const first = await client.execute(request, { idempotencyKey });
      const repeated = await client.execute(request, { idempotencyKey });
      expect(repeated).toMatchObject({ id: first.id, skill_id: "util.wait" });
      expect(["queued", "running"]).toContain(repeated.status);
      const executions = await executionsOf(server, key.secret, "util.wait");
      expect(executions.map((execution) => execution.id)).toEqual([first.id]);
    } finally {
      await client.close();
    }
  });

  it("after a gateway's 504 while the skill still runs, the client waits for that run instead of starting another", async () => {
    const server = suiteServer();
    const key = await server.createRoomyKey({ owner: "gateway-504" });
    const gatewayTimeout = rawJsonResponse(504, {}, { message: "upstream timed out" });
    proxy = await startTcpProxy(server.baseUrl, (index) =>
      index === 0 ? { relayThenRespond: gatewayTimeout } : "forward",
    );
    const retries: RetryEvent[] = [];
    behindProxy = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      onRetry: (e) => retries.push(e),
    });
    const record = await behindProxy.execute({ skill_id: "util.wait", params: { ms: 1_500 } });
    expect(record).toMatchObject({ status: "completed", success: true, result: { waited_ms: 1_500 } });
    expect(retries[0]?.error.status).toBe(504);
    for (const retry of retries.slice(1)) expect(retry.error.code).toBe("idempotency_in_progress");
    const executions = await executionsOf(server, key.secret, "util.wait");
    expect(executions.map((execution) => execution.id)).toEqual([record.id]);
  });

  it("a cancel retried after its connection dropped resolves with the record its first attempt cancelled, not 409", async () => {
    const { client, retries, secret, server } = await clientWithFirstConnectionCut("cancel-dropped");
    const direct = new Skillport({ apiKey: secret, baseUrl: server.baseUrl });
    try {
      const queued = await direct.execute({ skill_id: "util.wait", params: { ms: 20_000 }, async: true });
      const cancelled = await client.cancelExecution(queued.id);
      expect(cancelled).toMatchObject({ id: queued.id, status: "cancelled", success: false });
      expect(retries[0]?.error.code).toBe("connection_error");
      expect(await direct.getExecution(queued.id)).toEqual(cancelled);
    } finally {
      await direct.close();
    }
  });

  it("a cancel retried after its connection dropped still throws 409 when the execution ended otherwise", async () => {
    const { client, retries, secret, server } = await clientWithFirstConnectionCut("cancel-too-late");
    const direct = new Skillport({ apiKey: secret, baseUrl: server.baseUrl });
    try {
      const done = await direct.execute({ skill_id: "math.evaluate", params: { expression: "1" } });
      const err = await rejectionOf(client.cancelExecution(done.id));
      expect([err.status, err.code]).toEqual([409, "execution_not_cancellable"]);
      expect(retries[0]?.error.code).toBe("connection_error");
    } finally {
      await direct.close();
    }
  });

  it("reports failures below HTTP as SkillportErrors: a name that does not resolve, a TLS handshake with a plain port, an answer that is not HTTP", async () => {
    const server = suiteServer();
    const key = await server.createRoomyKey({ scope: "read-only" });
    const failureOf = async (baseUrl: string, maxRetries: number) => {
      const retries: RetryEvent[] = [];
      const client = new Skillport({
        apiKey: key.secret,
        baseUrl,
        maxRetries,
        onRetry: (e) => retries.push(e),
      });
      try {
        const err = await rejectionOf(client.discover({ query: "anything" }));
        expect(err.message).not.toContain(key.secret);
        return { code: err.code, status: err.status, retries: retries.map((retry) => retry.error.code) };
      } finally {
        await client.close();
      }
    };
    // Name resolution and the connection are retried, as a restarting service's are.
    expect(await failureOf("http://no-such-host.invalid:8080", 1)).toEqual({
      code: "connection_error",
      status: undefined,
      retries: ["connection_error"],
    });
    const plainPort = new URL(server.baseUrl).port;
    expect(await failureOf(`https://127.0.0.1:${plainPort}`, 0)).toMatchObject({ code: "connection_error" });
    // Something that is not an HTTP server answered: nothing to retry.
    proxy = await startTcpProxy(server.baseUrl, () => ({ respond: "SSH-2.0-OpenSSH_9.2\r\n\r\n" }));
    expect(await failureOf(proxy.baseUrl, 2)).toEqual({
      code: "unexpected_response",
      status: undefined,
      retries: [],
    });
  });

  /** A client with `retryRefusals: false` of a fresh owner's key, behind a proxy doing `plans` (then forwarding). */
  async function clientAnsweringRefusals(owner: string, plans: ConnectionPlan[]) {
    const server = suiteServer();
    const key = await server.createRoomyKey({ owner });
    proxy = await startTcpProxy(server.baseUrl, (index) => plans[index] ?? "forward");
    const retries: RetryEvent[] = [];
    behindProxy = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      retryRefusals: false,
      onRetry: (event) => retries.push(event),
    });
    const send = () =>
      (behindProxy as Skillport).execute({
        skill_id: "message.send",
        params: { channel: owner, text: "once" },
      });
    /** The ids of the key's message.send executions, as the server lists them. */
    const runs = async () =>
      (await executionsOf(server, key.secret, "message.send")).map((record) => record.id);
    return { send, retries, runs };
  }

  /** A refusal answered by the proxy itself, asking for a second's wait. */
  const refusal = (status: number, code: string): ConnectionPlan => ({
    respond: rawJsonResponse(
      status,
      { "retry-after": "1" },
      { error: { code, message: "Not now.", retry_after: 1 } },
    ),
  });

  it("with retryRefusals: false, throws a 429 or 503 at once, and still retries a lost answer (the run made once)", async () => {
    const { send, retries, runs } = await clientAnsweringRefusals("refusals-answered", [
      refusal(429, "rate_limit_exceeded"),
      refusal(503, "service_unavailable"),
      "cut-after-request",
    ]);
    const limited = await rejectionOf(send());
    expect([limited.status, limited.code, limited.retryAfterSeconds]).toEqual([
      429,
      "rate_limit_exceeded",
      1,
    ]);
    const unavailable = await rejectionOf(send());
    expect([unavailable.status, unavailable.code]).toEqual([503, "service_unavailable"]);
    expect(retries).toEqual([]);

    const record = await send();
    expect(record).toMatchObject({ status: "completed", success: true });
    expect(retries.map((retry) => retry.error.code)).toEqual(["connection_error"]);
    expect(await runs()).toEqual([record.id]);
  });

  it("with retryRefusals: false, a refusal met after a lost attempt is retried all the same: the call gets that attempt's run", async () => {
    // The first attempt runs and its answer is lost; the retry meets a 429 (the limiter
    // counted the first); thrown, it would tell the caller nothing ran.
    const { send, retries, runs } = await clientAnsweringRefusals("refused-after-lost", [
      "cut-after-request",
      refusal(429, "rate_limit_exceeded"),
    ]);
    const record = await send();
    expect(record).toMatchObject({ status: "completed", success: true });
    expect(retries.map((retry) => retry.error.code)).toEqual(["connection_error", "rate_limit_exceeded"]);
    expect(await runs()).toEqual([record.id]);
  });

  it("retries a connection that drops every time maxRetries times, then throws connection_error", async () => {
    const server = suiteServer();
    const key = await server.createRoomyKey({ scope: "read-only" });
    proxy = await startTcpProxy(server.baseUrl, () => "cut-after-request");
    const retries: RetryEvent[] = [];
    behindProxy = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      maxRetries: 2,
      onRetry: (event) => retries.push(event),
    });
    const err = await rejectionOf(behindProxy.discover({ query: "anything" }));
    expect(err.code).toBe("connection_error");
    expect(err.status).toBeUndefined();
    expect(retries.map((retry) => [retry.retry, retry.error.code, retry.method, retry.path])).toEqual([
      [1, "connection_error", "POST", "/v1/discover"],
      [2, "connection_error", "POST", "/v1/discover"],
    ]);
    expect(proxy.connections).toBe(3);
  });
});
