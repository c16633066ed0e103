import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  eventually,
  type Json,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import { type ConnectedClient, connectMcp } from "./mcp-clients.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a failure saying `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), ms)),
  ]);
}

/** `/mcp` as HTTP: the guards in front of the protocol (contract.md, "MCP surface"). */
describe("/mcp over HTTP", () => {
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    server = await startServer({ env: { SKILLPORT_MCP_SESSION_IDLE_MS: "1500" } });
    key = await server.createRoomyKey();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };

  /**
   * A raw POST to /mcp (fetch sets Host from the URL unless told otherwise by undici's
   * request), its response unread: a call's event stream, read when the test wants.
   */
  function send(body: Json | Json[], headers: Record<string, string> = {}, signal?: AbortSignal) {
    return fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
      signal,
    });
  }

  /** A raw POST to /mcp, read whole. */
  async function post(body: Json | Json[], headers: Record<string, string> = {}) {
    const res = await send(body, headers);
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  /** The headers of a request in a new session of the suite's key. */
  async function openSession(): Promise<Record<string, string>> {
    const auth = { authorization: `Bearer ${key.secret}` };
    const session = (await post(initialize, auth)).headers.get("mcp-session-id") ?? "";
    return { ...auth, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session };
  }

  const utilWait = (id: number, ms: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "util_wait", arguments: { ms } },
  });

  it("answers 401 with WWW-Authenticate and the contract's error without a key", async () => {
    const res = await post(initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(JSON.parse(res.text).error.code).toBe("missing_api_key");
    const wrong = await post(initialize, { authorization: "Bearer sk_live_nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(JSON.parse(wrong.text).error.code).toBe("invalid_api_key");
    // "as on /v1": the contract's envelope, its request id the header's.
    for (const answered of [res, wrong]) {
      expect(JSON.parse(answered.text).error.request_id).toBe(answered.headers.get("x-request-id"));
    }
  });

  // Regression: answered 400, where MCP's Streamable HTTP transport says an Origin present
  // and invalid MUST be answered 403 Forbidden.
  it("refuses a foreign Origin (DNS rebinding) with 403 and accepts a loopback one", async () => {
    const auth = { authorization: `Bearer ${key.secret}` };
    const evil = await post(initialize, { ...auth, origin: "http://evil.example.com" });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.text).error).toMatchObject({
      code: "host_not_allowed",
      message: expect.stringContaining("SKILLPORT_ALLOWED_ORIGINS"),
    });
    const local = await post(initialize, { ...auth, origin: server.baseUrl });
    expect(local.status).toBe(200);
    expect(local.headers.get("mcp-session-id")).toBeTruthy();
  });

  // Regression: JSON that is no JSON-RPC message was answered -32700 "Parse error" (a body
  // that is not JSON, by JSON-RPC), where stdio says -32600 and what is wrong with it.
  it("refuses JSON that is no JSON-RPC message saying what is wrong, as stdio does", async () => {
    const headers = await openSession();
    for (const [body, reason] of [
      [{ id: 4, method: "ping" }, '"jsonrpc" must be "2.0"'],
      [{ jsonrpc: "2.0", id: 5 }, "the message is not a JSON-RPC 2.0 message."],
      [{ jsonrpc: "2.0", id: 6, method: 7 }, "(method: must be a string, not a number)"],
      [
        [
          { jsonrpc: "2.0", id: 7, method: "ping" },
          { jsonrpc: "1.0", id: 8, method: "ping" },
        ],
        '"jsonrpc" must be "2.0"',
      ],
    ] as const) {
      const res = await post(body as Json | Json[], headers);
      expect(res.status, res.text).toBe(400);
      expect(JSON.parse(res.text).error).toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining(reason),
      });
    }
    // A well-formed batch (MCP 2025-03-26) still reaches the protocol.
    const batch = await post(
      [
        { jsonrpc: "2.0", id: 9, method: "ping" },
        { jsonrpc: "2.0", id: 10, method: "ping" },
      ],
      headers,
    );
    expect(batch.status, batch.text).toBe(200);
  });

  // Audit, session 38: an empty body was passed over (the SDK then answered a JSON-RPC parse
  // error in a session, "No Mcp-Session-Id header" without one), and a batched initialize
  // was told to send an initialize.
  it("says a POST body is empty, and that an initialize is sent alone, not in a batch", async () => {
    const emptyBody = async (headers: Record<string, string>) => {
      const res = await fetch(`${server.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      });
      return {
        status: res.status,
        error: ((await res.json()) as { error: { code: string; message: string } }).error,
      };
    };
    const auth = { authorization: `Bearer ${key.secret}` };
    for (const headers of [auth, await openSession()]) {
      expect(await emptyBody(headers)).toMatchObject({
        status: 400,
        error: { code: "invalid_request", message: "the request body is empty: send one JSON-RPC message." },
      });
    }
    const batched = await post([initialize], auth);
    expect(batched.status).toBe(400);
    expect(JSON.parse(batched.text).error).toMatchObject({
      code: "invalid_request",
      message: "An initialize request is sent on its own, not in a batch: send it alone to start a session.",
    });
  });

  // A rebinding page's requests carry its name in Host as well as in Origin: refused alike.
  it("refuses a foreign Host header with 403", async () => {
    const { request } = await import("undici");
    const res = await request(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: {
        host: "evil.example.com",
        authorization: `Bearer ${key.secret}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialize),
    });
    expect(res.statusCode).toBe(403);
    expect(((await res.body.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "host_not_allowed",
      message: expect.stringMatching(/Host/),
    });
  });

  // Audit, session 38: a Host the transport could build no URL from was answered 400 with
  // an empty body; a loopback name in any case, with a port, is still taken.
  it("refuses a Host header that names no host with 400 in the contract's shape", async () => {
    const { request } = await import("undici");
    const post = (host: string) =>
      request(`${server.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          host,
          authorization: `Bearer ${key.secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(initialize),
      });
    for (const host of ["localhost:abc", "127.0.0.1:99999", "127.0.0.1:", "localhost:8080/x"]) {
      const res = await post(host);
      expect(res.statusCode, host).toBe(400);
      expect(((await res.body.json()) as { error: { code: string; message: string } }).error).toEqual({
        code: "invalid_request",
        message: `The Host header ${JSON.stringify(host)} is not a host name with an optional port.`,
        request_id: res.headers["x-request-id"],
      });
    }
    for (const host of ["LocalHost:8080", "[::1]:80", "127.0.0.1"]) {
      const res = await post(host);
      expect(res.statusCode, host).toBe(200);
      await res.body.dump();
    }
  });

  it("keeps sessions to the key that opened them, and ends them on DELETE", async () => {
    const auth = { authorization: `Bearer ${key.secret}` };
    // Made first: creating a key spawns the CLI, which on a busy machine can outlast the
    // session's 1.5 s idle timeout (regression: the session had closed, 404).
    const other = await server.createRoomyKey();
    const opened = await post(initialize, auth);
    const session = opened.headers.get("mcp-session-id") ?? "";
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const stolen = await post(list, { authorization: `Bearer ${other.secret}`, "mcp-session-id": session });
    expect(stolen.status).toBe(404);
    const own = await post(list, {
      ...auth,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    });
    expect(own.status).toBe(200);
    expect(own.text).toContain("discover_skills");
    const deleted = await fetch(`${server.baseUrl}/mcp`, {
      method: "DELETE",
      headers: { ...auth, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    });
    expect(deleted.status).toBe(200);
    expect((await post(list, { ...auth, "mcp-session-id": session })).status).toBe(404);
  });

  it("refuses a request whose id a request of the same session still in flight has, and answers that one", async () => {
    const inSession = await openSession();
    // Its headers came: the server has the call (a fixed pause was too short on a busy machine).
    const first = await send(utilWait(5, 1_000), inSession);
    expect(first.status).toBe(200);
    const reused = await post({ jsonrpc: "2.0", id: 5, method: "tools/list" }, inSession);
    expect(reused.status).toBe(400);
    expect(JSON.parse(reused.text).error).toMatchObject({ code: "invalid_request" });
    expect(JSON.parse(reused.text).error.message).toMatch(/request id 5 .*still being answered/);
    // The first request keeps its own answer (it was taken by the second, and never came).
    const answered = await within(first.text(), 10_000, "the first call was never answered");
    expect(answered).toContain('"waited_ms":1000');
    // Once answered, its id may be used again.
    expect((await post({ jsonrpc: "2.0", id: 5, method: "tools/list" }, inSession)).status).toBe(200);
  });

  it("ends the response of a call the client cancels, frees its id, and the session then expires when idle", async () => {
    const inSession = await openSession();
    const call = await send(utilWait(7, 60_000), inSession);
    // Its headers came: the server has the call.
    expect(call.status).toBe(200);
    await sleep(200);
    const cancel = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "test" },
    };
    expect((await post(cancel, inSession)).status).toBe(202);
    // The SDK sends no answer for a cancelled request: the response ends without one
    // (regression: it stayed open for ever, the session in use, never expiring).
    const text = await within(call.text(), 5_000, "the cancelled call's response never ended");
    expect(text).not.toContain('"result"');
    expect((await post({ jsonrpc: "2.0", id: 7, method: "tools/list" }, inSession)).status).toBe(200);
    await sleep(6_000);
    expect((await post({ jsonrpc: "2.0", id: 8, method: "tools/list" }, inSession)).status).toBe(404);
  });

  it("ends a batch's response once its other requests are answered, when the client cancels one of them", async () => {
    const inSession = await openSession();
    const started = Date.now();
    const batch = await send([utilWait(11, 60_000), utilWait(12, 1_500)], inSession);
    expect(batch.status).toBe(200);
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 11 } };
    expect((await post(cancel, inSession)).status).toBe(202);
    const text = await within(batch.text(), 10_000, "the batch's response never ended");
    // Not cut short by the cancellation: the other call's answer came first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(text).toContain('"waited_ms":1500');
    expect(text).not.toContain('"id":11');
  });

  it("counts a call whose client dropped the connection as answered: the session expires when idle", async () => {
    const inSession = await openSession();
    const dropped = new AbortController();
    const call = await send(utilWait(7, 3_000), inSession, dropped.signal);
    expect(call.status).toBe(200);
    await sleep(200);
    dropped.abort();
    // Past the call's end, the idle time and a sweep.
    await sleep(7_000);
    expect((await post({ jsonrpc: "2.0", id: 8, method: "tools/list" }, inSession)).status).toBe(404);
  });

  // Regression (audit 22, MCP #7): HEAD went to the transport, which refused it, while the
  // Allow header of every 405 named it.
  it("answers HEAD and PUT 405 alike, with an Allow header naming only what /mcp takes", async () => {
    const auth = { authorization: `Bearer ${key.secret}` };
    for (const method of ["HEAD", "PUT"]) {
      const res = await fetch(`${server.baseUrl}/mcp`, { method, headers: auth });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBe("GET, POST, DELETE");
    }
  });

  it("asks for initialize when a request names no session", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { authorization: `Bearer ${key.secret}` },
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toMatch(/initialize/);
  });

  it("says what a malformed initialize lacks, rather than asking for an initialize", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } },
      { authorization: `Bearer ${key.secret}` },
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toMatch(/initialize request is malformed: .*protocolVersion/);
  });

  it("closes a session left idle past SKILLPORT_MCP_SESSION_IDLE_MS", async () => {
    const auth = { authorization: `Bearer ${key.secret}` };
    const session = (await post(initialize, auth)).headers.get("mcp-session-id") ?? "";
    // Any request would keep it alive: wait well past the idle time and the sweep, then look once.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const res = await post(list, {
      ...auth,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    });
    expect(res.status).toBe(404);
  });

  it("every /mcp response carries the request id and the key's limit headers", async () => {
    const res = await post(initialize, { authorization: `Bearer ${key.secret}` });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    for (const name of [
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "x-ratelimit-window",
    ]) {
      expect(res.headers.get(name), name).toMatch(/^\d+$/);
    }
    expect(res.headers.get("x-ratelimit-limit")).toBe("100000");
    expect(res.headers.get("ratelimit-policy")).toMatch(/"minute";q=100000;w=60, "day";q=1000000;w=86400/);
  });

  it("does not count initialize and tools/list against the key's limits; tools/call does", async () => {
    await awayFromMinuteBoundary(10);
    const free = await server.createKey({ plan: "free" });
    const remaining = async () =>
      Number(
        (await server.request("GET", "/v1/skills?limit=1", { key: free.secret })).headers.get(
          "x-ratelimit-remaining",
        ),
      );
    const before = await remaining();
    const session = await connectMcp("http", server, free.secret);
    await session.client.listTools();
    await session.client.listTools();
    expect(await remaining()).toBe(before - 1);
    await session.client.callTool({ name: "discover_skills", arguments: { query: "hash" } });
    expect(await remaining()).toBe(before - 3);
    await session.close();
  });

  it("has a tools/call's response describe the limits with that call counted, as a /v1 response does", async () => {
    await awayFromMinuteBoundary(10);
    const free = await server.createKey({ plan: "free" });
    const auth = { authorization: `Bearer ${free.secret}` };
    const opened = await post(initialize, auth);
    const headers = {
      ...auth,
      "mcp-protocol-version": "2025-11-25",
      "mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
    };
    expect(opened.headers.get("x-ratelimit-remaining")).toBe("60");
    const evaluate = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "math_evaluate", arguments: { expression: "6*7" } },
    });
    // The response's headers are written as its event stream starts, before the tool runs.
    const one = await post(evaluate(2), headers);
    expect(one.text).toContain('"value":42');
    expect(one.headers.get("x-ratelimit-remaining")).toBe("59");
    const batch = await post([evaluate(3), evaluate(4)], headers);
    expect(batch.text).toContain('"id":4');
    expect(batch.headers.get("x-ratelimit-remaining")).toBe("57");
    // A call the protocol refuses counts in no mode (README): its headers say so.
    const malformed = await post(
      { ...evaluate(5), params: { name: "math_evaluate", arguments: "x" } },
      headers,
    );
    expect(malformed.text).toContain("-32602");
    expect(malformed.headers.get("x-ratelimit-remaining")).toBe("57");
    // Each call counted once: the tool layer did not count them again.
    const rest = await server.request("GET", "/v1/skills?limit=1", { key: free.secret });
    expect(rest.headers.get("x-ratelimit-remaining")).toBe("56");
    for (let spent = 0; spent < 56; spent++) {
      await server.request("GET", "/v1/skills?limit=1", { key: free.secret });
    }
    const refused = await post(evaluate(6), headers);
    expect(refused.status).toBe(200);
    expect(refused.text).toContain("rate_limit_exceeded");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  });
});

/** `/mcp` with every session slot taken (SKILLPORT_MCP_MAX_SESSIONS). */
describe("/mcp when its sessions are full", () => {
  let server: TestServer;
  let a: CreatedKey;
  let b: CreatedKey;

  beforeAll(async () => {
    server = await startServer({ env: { SKILLPORT_MCP_MAX_SESSIONS: "2" } });
    [a, b] = await Promise.all([server.createRoomyKey(), server.createRoomyKey()]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const headers = (key: CreatedKey, session?: string): Record<string, string> => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${key.secret}`,
    "mcp-protocol-version": "2025-11-25",
    ...(session ? { "mcp-session-id": session } : {}),
  });
  const post = (key: CreatedKey, body: Json, session?: string) =>
    fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: headers(key, session),
      body: JSON.stringify(body),
    });
  const initialize = (key: CreatedKey) =>
    post(key, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
  async function open(key: CreatedKey): Promise<string> {
    const res = await initialize(key);
    await res.text();
    expect(res.status).toBe(200);
    // Apart in time from the next request, so "least recently used" is never a tie.
    await new Promise((resolve) => setTimeout(resolve, 10));
    return res.headers.get("mcp-session-id") ?? "";
  }
  async function listStatus(key: CreatedKey, session: string): Promise<number> {
    const res = await post(key, { jsonrpc: "2.0", id: 2, method: "tools/list" }, session);
    await res.text();
    await new Promise((resolve) => setTimeout(resolve, 10));
    return res.status;
  }

  it("lets one key use every slot, yet another key's initialize takes the least recently used session of the key holding the most", async () => {
    const a1 = await open(a);
    const a2 = await open(a);
    expect(await listStatus(a, a1)).toBe(200); // a2 is now a's least recently used
    const b1 = await open(b);
    expect(await listStatus(a, a2)).toBe(404);
    expect(await listStatus(a, a1)).toBe(200);
    expect(await listStatus(b, b1)).toBe(200);
    // One session each: the key asking gives up its own least recently used one.
    const a3 = await open(a);
    expect(await listStatus(a, a1)).toBe(404);
    expect(await listStatus(a, a3)).toBe(200);
    expect(await listStatus(b, b1)).toBe(200);
  });

  /** Starts a long util.wait call on `session` (not awaited), once it is running; `stop` cancels it. */
  async function busy(key: CreatedKey, session: string): Promise<{ stop(): Promise<void> }> {
    const answered = post(
      key,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "util_wait", arguments: { ms: 60_000 } },
      },
      session,
    ).then((res) => res.text());
    const id = await eventually(async () => {
      const listed = await server.request("GET", "/v1/executions?skill_id=util.wait&status=running&limit=1", {
        key: key.secret,
      });
      return bodyOf<{ data: { id: string }[] }>(listed).data[0]?.id;
    }, 30_000);
    return {
      async stop() {
        await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
        await answered;
      },
    };
  }

  it("answers 503 with Retry-After when every session is answering a request, and takes one once it is idle", async () => {
    const [c, d] = await Promise.all([
      server.createRoomyKey({ owner: "c" }),
      server.createRoomyKey({ owner: "d" }),
    ]);
    const calls = [await busy(c, await open(c)), await busy(d, await open(d))];
    const refused = await initialize(d);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    for (const call of calls) await call.stop();
    expect(await open(d)).toBeTruthy();
  });

  it("takes another key's idle session when the key holding the most has none idle", async () => {
    const [c, d, e] = (await Promise.all(
      ["c2", "d2", "e2"].map((owner) => server.createRoomyKey({ owner })),
    )) as [CreatedKey, CreatedKey, CreatedKey];
    const call = await busy(c, await open(c));
    const idle = await open(d);
    const third = await open(e);
    expect(third).toBeTruthy();
    expect(await listStatus(d, idle)).toBe(404);
    await call.stop();
  });

  /**
   * Has `mcp` call util.wait and cancel it by the SDK's AbortSignal once the server has the
   * call; resolves once the server has the cancellation (notifications/cancelled). A POST
   * resolves when its response's headers arrive, which the transport sends after handing
   * the message on.
   */
  async function cancelledCall(mcp: ConnectedClient): Promise<void> {
    const transport = mcp.client.transport;
    if (!transport) throw new Error("the client is not connected");
    const send = transport.send.bind(transport);
    const sent = new Map<string, (sent: Promise<void>) => void>();
    const received = (method: string) =>
      new Promise<void>((resolve, reject) => {
        sent.set(method, (sending) => sending.then(resolve, reject));
      });
    const [call, cancel] = [received("tools/call"), received("notifications/cancelled")];
    transport.send = (message, options) => {
      const sending = send(message, options);
      if ("method" in message) sent.get(message.method)?.(sending);
      return sending;
    };
    const abort = new AbortController();
    const answer = mcp.client.callTool({ name: "util_wait", arguments: { ms: 60_000 } }, undefined, {
      signal: abort.signal,
    });
    await call;
    abort.abort();
    await expect(answer).rejects.toThrow(/abort/i);
    await cancel;
    transport.send = send;
  }

  it("lets another key take the slot of a session whose call its client cancelled", async () => {
    const [c, d, e] = (await Promise.all(
      ["c4", "d4", "e4"].map((owner) => server.createRoomyKey({ owner })),
    )) as [CreatedKey, CreatedKey, CreatedKey];
    // One session each (so neither takes the other's), holding both slots.
    const clients = [await connectMcp("http", server, c.secret), await connectMcp("http", server, d.secret)];
    try {
      for (const mcp of clients) await cancelledCall(mcp);
      // Regression: a cancelled call's response stayed open, its session in use for ever,
      // so c and d held both slots and every other key got 503.
      expect(await open(e)).toBeTruthy();
    } finally {
      await Promise.all(clients.map((mcp) => mcp.close()));
    }
  });

  it("counts a held event stream (GET) as idle: it cannot keep a slot forever", async () => {
    const [c, d, e] = (await Promise.all(
      ["c3", "d3", "e3"].map((owner) => server.createRoomyKey({ owner })),
    )) as [CreatedKey, CreatedKey, CreatedKey];
    const streams = new AbortController();
    const streaming = await open(c);
    const stream = await fetch(`${server.baseUrl}/mcp`, {
      method: "GET",
      headers: { ...headers(c, streaming), accept: "text/event-stream" },
      signal: streams.signal,
    });
    expect(stream.status).toBe(200); // its body is left open: the stream is held
    const call = await busy(d, await open(d));
    try {
      expect(await open(e)).toBeTruthy();
      expect(await listStatus(c, streaming)).toBe(404);
    } finally {
      streams.abort();
      await call.stop();
    }
  });
});
