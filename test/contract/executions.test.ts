import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  expectError,
  readEventStream,
  sleep,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

interface Page {
  data: ExecutionRecord[];
  next_cursor: string | null;
}

// contract.md, "Execution resources".
describe("contract: execution resources", () => {
  let server: TestServer;
  let key: CreatedKey;
  let otherOwner: CreatedKey;
  /** The ids of this owner's executions, oldest first. */
  const created: ExecutionRecord[] = [];

  beforeAll(async () => {
    server = await startServer();
    [key, otherOwner] = await Promise.all([
      server.createRoomyKey({ name: "lister", owner: "lister" }),
      server.createRoomyKey({ name: "other", owner: "someone-else" }),
    ]);
    const bodies = [
      { skill_id: "math.evaluate", params: { expression: "1+1" } },
      { skill_id: "math.evaluate", params: { expression: "2+*3" } },
      { skill_id: "message.send", params: { channel: "c", text: "t" } },
      { skill_id: "math.evaluate", params: { expression: "3+3" } },
      { skill_id: "math.evaluate", params: { expression: "4+" } },
      { skill_id: "message.send", params: { channel: "c", text: "u" } },
      { skill_id: "math.evaluate", params: { expression: "5+5" } },
    ];
    for (const json of bodies) {
      const res = await server.request("POST", "/v1/execute", { key: key.secret, json });
      expect(res.status, res.text).toBe(200);
      created.push(bodyOf<ExecutionRecord>(res));
      // Distinct creation times, so "newest first" has one right answer.
      await sleep(5);
    }
    // Another owner's executions must never show up in this owner's listings.
    await server.request("POST", "/v1/execute", {
      key: otherOwner.secret,
      json: { skill_id: "math.evaluate", params: { expression: "9" } },
    });
  });
  afterAll(() => stopExpectingNoErrors(server));

  const list = async (query: string, secret = key.secret): Promise<Page> => {
    const res = await server.request("GET", `/v1/executions${query}`, { key: secret });
    expect(res.status, res.text).toBe(200);
    return bodyOf<Page>(res);
  };

  it("lists the owner's executions newest first, as {data, next_cursor}", async () => {
    const page = await list("");
    expect(page.data.map((r) => r.id)).toEqual(created.map((r) => r.id).reverse());
    expect(page.next_cursor).toBeNull();
    // The listed records are the records.
    expect(page.data.at(-1)).toEqual(created[0]);
  });

  it("paginates with limit and next_cursor, without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : "?limit=3";
      const page = await list(query);
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(created.map((r) => r.id).reverse());
  });

  it("filters by status and by skill_id, and by both", async () => {
    const failed = await list("?status=failed");
    expect(failed.data.map((r) => r.id)).toEqual(
      created
        .filter((r) => r.status === "failed")
        .map((r) => r.id)
        .reverse(),
    );
    expect(failed.data).toHaveLength(2);
    const sends = await list("?skill_id=message.send");
    expect(sends.data.map((r) => r.id)).toEqual(
      created
        .filter((r) => r.skill_id === "message.send")
        .map((r) => r.id)
        .reverse(),
    );
    const both = await list("?skill_id=math.evaluate&status=completed&limit=2");
    expect(both.data).toHaveLength(2);
    for (const r of both.data) expect(r).toMatchObject({ skill_id: "math.evaluate", status: "completed" });
    expect(both.next_cursor).not.toBeNull();
    const rest = await list(`?skill_id=math.evaluate&status=completed&limit=2&cursor=${both.next_cursor}`);
    expect(rest.data).toHaveLength(1);
    expect(rest.next_cursor).toBeNull();
  });

  it("shows a key only its own owner's records", async () => {
    const mine = (await list("?limit=100")).data.map((r) => r.id);
    const theirs = (await list("?limit=100", otherOwner.secret)).data.map((r) => r.id);
    expect(theirs).toHaveLength(1);
    for (const id of theirs) expect(mine).not.toContain(id);
  });

  it("refuses a bad limit, status or cursor with 400 invalid_request", async () => {
    for (const query of [
      "?limit=0",
      "?limit=101",
      "?limit=x",
      "?limit=",
      "?limit=0x10",
      "?limit=2&limit=3",
      "?status=done",
      "?cursor=%21%21garbage%21%21",
    ]) {
      const res = await server.request("GET", `/v1/executions${query}`, { key: key.secret });
      expectError(res, 400, "invalid_request");
    }
  });

  // Audit 27 F4: a repeated parameter was told "must be a whole number" or "expected one of
  // ...", although each value given was both.
  it("tells a parameter given more than once that it was, on every listing and the long poll", async () => {
    const { id } = bodyOf<{ id: string }>(
      await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "math.evaluate", params: { expression: "1" } },
      }),
    );
    for (const [path, name, times] of [
      ["/v1/executions?status=completed&status=failed", "status", 2],
      ["/v1/executions?limit=1&limit=1", "limit", 2],
      ["/v1/executions?cursor=a&cursor=b&cursor=c", "cursor", 3],
      ["/v1/skills?limit=1&limit=2", "limit", 2],
      [`/v1/executions/${id}?wait=1&wait=2`, "wait", 2],
    ] as const) {
      const error = expectError(
        await server.request("GET", path, { key: key.secret }),
        400,
        "invalid_request",
      );
      expect(error.message, path).toBe(`${name}: the parameter was given ${times} times; give it once`);
    }
  });

  it("refuses a cursor of another listing, or one made up, with 400 invalid_request", async () => {
    const skills = await server.request("GET", "/v1/skills?limit=1", { key: key.secret });
    expect(skills.status, skills.text).toBe(200);
    const skillsCursor = bodyOf<Page>(skills).next_cursor;
    expect(skillsCursor).not.toBeNull();
    const executions = await list("?limit=1");
    expect(executions.next_cursor).not.toBeNull();
    const madeUp = Buffer.from(JSON.stringify({ id: "m" })).toString("base64url");
    for (const [path, cursor] of [
      ["/v1/executions", skillsCursor],
      ["/v1/skills", executions.next_cursor],
      ["/v1/executions", madeUp],
      ["/v1/skills", madeUp],
    ]) {
      const res = await server.request("GET", `${path}?cursor=${cursor}`, { key: key.secret });
      expectError(res, 400, "invalid_request");
    }
  });

  it("streams status and progress events over SSE, ending with the terminal status", async () => {
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 2500 }, async: true },
    });
    expect(res.status).toBe(202);
    const { id } = bodyOf<ExecutionRecord>(res);
    const stream = await readEventStream(server.baseUrl, `/v1/executions/${id}/events`, key.secret);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // A stream is a response like any other: request id and limit headers.
    expect(stream.headers.get("x-request-id")).toMatch(/\S/);
    expect(stream.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(stream.headers.get("x-ratelimit-window")).toMatch(/^\d+$/);
    const names = stream.events.map((e) => e.event);
    expect(names[0]).toBe("status");
    expect(names).toContain("progress");
    const last = stream.events.at(-1);
    expect(last?.event).toBe("status");
    const terminal = JSON.parse(last?.data ?? "{}") as ExecutionRecord;
    expect(terminal).toMatchObject({ id, status: "completed", success: true, result: { waited_ms: 2500 } });
    // Exactly one terminal status, and it is the last event.
    const statuses = stream.events
      .filter((e) => e.event === "status")
      .map((e) => (JSON.parse(e.data) as ExecutionRecord).status);
    expect(
      statuses.filter((s) => ["completed", "failed", "timed_out", "cancelled"].includes(s)),
    ).toHaveLength(1);
  });

  it("clients dropping event streams mid-way do not disturb the execution or the server", async () => {
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 2500 }, async: true },
    });
    const { id } = bodyOf<ExecutionRecord>(res);
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const stream = await fetch(`${server.baseUrl}/v1/executions/${id}/events`, {
        headers: { authorization: `Bearer ${key.secret}` },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
      await sleep(150 * i);
      controller.abort();
    }
    const done = await server.request("GET", `/v1/executions/${id}?wait=15`, { key: key.secret });
    expect(bodyOf<ExecutionRecord>(done)).toMatchObject({ status: "completed", result: { waited_ms: 2500 } });
    expect((await server.request("GET", "/healthz")).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it("serves many long polls and event streams at once without a listener-leak warning", async () => {
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 1500 }, async: true },
    });
    const { id } = bodyOf<ExecutionRecord>(res);
    const polls = Array.from({ length: 15 }, () =>
      server.request("GET", `/v1/executions/${id}?wait=15`, { key: key.secret }),
    );
    const streams = Array.from({ length: 15 }, () =>
      readEventStream(server.baseUrl, `/v1/executions/${id}/events`, key.secret),
    );
    for (const done of await Promise.all(polls)) {
      expect(bodyOf<ExecutionRecord>(done).status).toBe("completed");
    }
    for (const stream of await Promise.all(streams)) expect(stream.status).toBe(200);
    // Node's warning at 11 listeners on one signal reads "possible memory leak" to operators.
    expect(server.logs()).not.toMatch(/MaxListenersExceededWarning/);
  });

  it("the event stream of a finished execution is its terminal status, then the end", async () => {
    const stream = await readEventStream(
      server.baseUrl,
      `/v1/executions/${created[0]?.id}/events`,
      key.secret,
    );
    expect(stream.status).toBe(200);
    expect(stream.events).toHaveLength(1);
    expect(stream.events[0]?.event).toBe("status");
    expect(JSON.parse(stream.events[0]?.data ?? "{}")).toEqual(created[0]);
  });

  it("HEAD on a running execution's event stream answers its headers at once, without holding the stream", async () => {
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 60_000 }, async: true },
    });
    const { id } = bodyOf<ExecutionRecord>(res);
    const head = await fetch(`${server.baseUrl}/v1/executions/${id}/events`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${key.secret}` },
      signal: AbortSignal.timeout(20_000),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toContain("text/event-stream");
    expect(await head.text()).toBe("");
    const running = await server.request("GET", `/v1/executions/${id}`, { key: key.secret });
    expect(bodyOf<ExecutionRecord>(running).status).toBe("running");
    await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
  });

  it("the event stream ends with the cancelled status when the execution is cancelled", async () => {
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 30_000 }, async: true },
    });
    const { id } = bodyOf<ExecutionRecord>(res);
    const streaming = readEventStream(server.baseUrl, `/v1/executions/${id}/events`, key.secret);
    await sleep(300);
    const cancel = await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
    expect(cancel.status).toBe(200);
    const stream = await streaming;
    const last = JSON.parse(stream.events.at(-1)?.data ?? "{}") as ExecutionRecord;
    expect(last).toMatchObject({ id, status: "cancelled" });
    expect(last.error?.code).toBe("execution_cancelled");
  });
});

// With one async slot, a second async execution waits `queued`: what a cancel does to it.
describe("contract: queued executions", () => {
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    server = await startServer({ env: { SKILLPORT_ASYNC_CONCURRENCY: "1" } });
    key = await server.createRoomyKey({ name: "queue" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  const start = async (ms: number) => {
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms }, async: true },
    });
    expect(res.status, res.text).toBe(202);
    return bodyOf<ExecutionRecord>(res);
  };
  const get = async (id: string) =>
    bodyOf<ExecutionRecord>(await server.request("GET", `/v1/executions/${id}`, { key: key.secret }));
  const cancel = (id: string) => server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });

  it("a running execution's latency_ms is the time it has run so far (null only until it started)", async () => {
    const running = await start(1_500);
    await eventually(async () => expect((await get(running.id)).status).toBe("running"));
    await sleep(300);
    const read = await get(running.id);
    expect(read.status).toBe("running");
    expect(read.latency_ms).toBeTypeOf("number");
    const asOfRead = Date.now() - Date.parse(read.started_at ?? "");
    expect(read.latency_ms ?? -1).toBeGreaterThanOrEqual(250);
    expect(read.latency_ms ?? Infinity).toBeLessThanOrEqual(asOfRead + 50);
    const listed = bodyOf<Page>(
      await server.request("GET", "/v1/executions?status=running", { key: key.secret }),
    );
    expect(listed.data.find((record) => record.id === running.id)?.latency_ms).toBeTypeOf("number");
    const stream = await readEventStream(server.baseUrl, `/v1/executions/${running.id}/events`, key.secret);
    const first = JSON.parse(stream.events[0]?.data ?? "{}") as ExecutionRecord;
    expect(first.status === "running" ? first.latency_ms : 0).toBeTypeOf("number");
    const done = await get(running.id);
    expect(done).toMatchObject({ status: "completed" });
    expect(done.latency_ms ?? 0).toBeGreaterThanOrEqual(1_500);
  });

  it("a queued execution is cancelled before it starts: never started, no latency, never runs", async () => {
    const running = await start(30_000);
    const queued = await start(200);
    expect(queued).toMatchObject({ status: "queued", started_at: null, latency_ms: null, finished_at: null });
    await sleep(300);
    expect((await get(queued.id)).status).toBe("queued");
    const listed = bodyOf<Page>(
      await server.request("GET", "/v1/executions?status=queued", { key: key.secret }),
    );
    expect(listed.data.map((r) => r.id)).toEqual([queued.id]);

    const res = await cancel(queued.id);
    expect(res.status, res.text).toBe(200);
    const cancelled = bodyOf<ExecutionRecord>(res);
    expect(cancelled).toMatchObject({
      id: queued.id,
      status: "cancelled",
      success: false,
      result: null,
      started_at: null,
      latency_ms: null,
    });
    expect(cancelled.error?.code).toBe("execution_cancelled");
    expect(cancelled.finished_at).toMatch(/Z$/);

    // Freeing the slot must not start the cancelled execution.
    expect((await cancel(running.id)).status).toBe(200);
    await sleep(500);
    expect(await get(queued.id)).toEqual(cancelled);
    expectError(await cancel(queued.id), 409, "execution_not_cancellable");
  });

  it("a queued execution runs once the slot frees up", async () => {
    const first = await start(300);
    const second = await start(100);
    const done = bodyOf<ExecutionRecord>(
      await server.request("GET", `/v1/executions/${second.id}?wait=10`, { key: key.secret }),
    );
    expect(done).toMatchObject({ status: "completed", result: { waited_ms: 100 } });
    const firstDone = await get(first.id);
    expect(firstDone.status).toBe("completed");
    // One slot: the second started only after the first finished.
    expect(Date.parse(done.started_at ?? "")).toBeGreaterThanOrEqual(Date.parse(firstDone.finished_at ?? ""));
  });
});

describe("contract: two processes on one data dir", () => {
  let a: TestServer;
  let b: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    a = await startServer();
    b = await startServer({ dataDir: a.dataDir });
    key = await a.createKey({ name: "two-processes" });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it("a cancel through the other process stops the run, and its caller gets the stored cancelled record", async () => {
    const started = Date.now();
    const sync = a.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 20_000 }, timeout_ms: 60_000 },
    });
    const running = await eventually(
      async () =>
        bodyOf<Page>(await b.request("GET", "/v1/executions?status=running", { key: key.secret })).data[0],
    );
    const cancelled = await b.request("POST", `/v1/executions/${running?.id}/cancel`, { key: key.secret });
    expect(cancelled.status, cancelled.text).toBe(200);
    const answer = await sync;
    expect(answer.status, answer.text).toBe(200);
    // The record the caller got is the one stored: the cancel, not a completion it never had.
    expect(bodyOf<ExecutionRecord>(answer)).toMatchObject({ id: running?.id, status: "cancelled" });
    const stored = await a.request("GET", `/v1/executions/${running?.id}`, { key: key.secret });
    expect(bodyOf<ExecutionRecord>(stored)).toEqual(bodyOf<ExecutionRecord>(answer));
    // Stopped, not run to its end: well before its 20 s.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
