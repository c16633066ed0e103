import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  expectError,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

// Issue 7, "Overload": a key's unfinished executions are capped (429
// concurrency_limit_exceeded), the process's too (503 service_unavailable), both with
// Retry-After; nothing is stored for a refused request; /readyz and /metrics show the load.
interface Ready {
  status: string;
  executions: { running: number; queued: number; held: number; capacity: number };
  workers: { threads: number; queued: number };
  event_loop_delay_ms: { p99Ms: number; maxMs: number };
}

describe("contract: overload", { timeout: 60_000 }, () => {
  let server: TestServer;
  let first: CreatedKey;
  let second: CreatedKey;

  beforeAll(async () => {
    server = await startServer({
      env: { SKILLPORT_MAX_CONCURRENT_PER_KEY: "2", SKILLPORT_MAX_PENDING_EXECUTIONS: "3" },
    });
    let warm: CreatedKey;
    [first, second, warm] = await Promise.all([
      server.createRoomyKey({ name: "first", owner: "one" }),
      server.createRoomyKey({ name: "second", owner: "two" }),
      server.createRoomyKey({ name: "warm", owner: "three" }),
    ]);
    // One isolated skill run starts the worker pool now (it would start a second after the
    // process anyway), so that /readyz reports its threads whatever the timing.
    const warmUp = await server.request("POST", "/v1/execute", {
      key: warm.secret,
      json: { skill_id: "math.evaluate", params: { expression: "1+1" } },
    });
    expect(warmUp.status, warmUp.text).toBe(200);
  });
  afterAll(() => stopExpectingNoErrors(server));

  const wait = (key: CreatedKey) =>
    server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 60_000 }, async: true },
    });
  const listed = async (key: CreatedKey) =>
    bodyOf<{ data: ExecutionRecord[] }>(await server.request("GET", "/v1/executions", { key: key.secret }))
      .data;
  const cancel = (key: CreatedKey, id: string) =>
    server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });

  it("refuses a key's execution beyond its cap with 429 concurrency_limit_exceeded and Retry-After, storing nothing", async () => {
    const accepted = await Promise.all([wait(first), wait(first)]);
    for (const res of accepted) expect(res.status, res.text).toBe(202);

    const refused = await wait(first);
    const error = expectError(refused, 429, "concurrency_limit_exceeded");
    expect(error.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("retry-after")).toBe(String(error.retry_after));
    // Audit 27 F3: the document's 429 for an execute named only rate_limit_exceeded.
    const doc = bodyOf<{
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    }>(await server.request("GET", "/v1/openapi.json"));
    expect(doc.paths["/v1/execute"]?.post?.responses["429"]?.description.split(", ")).toContain(error.code);
    // A synchronous execution counts the same way.
    expectError(
      await server.request("POST", "/v1/execute", {
        key: first.secret,
        json: { skill_id: "math.evaluate", params: { expression: "1+1" } },
      }),
      429,
      "concurrency_limit_exceeded",
    );
    expect(await listed(first)).toHaveLength(2);

    // Another key is not held back by the first one's cap.
    const other = await wait(second);
    expect(other.status, other.text).toBe(202);
  });

  it("answers 503 service_unavailable with Retry-After once the process holds its capacity, and /readyz says saturated", async () => {
    // Three unfinished now (two of `first`, one of `second`): the capacity.
    const refused = await wait(second);
    const error = expectError(refused, 503, "service_unavailable");
    expect(refused.headers.get("retry-after")).toBe(String(error.retry_after));
    expect(await listed(second)).toHaveLength(1);

    const ready = await server.request("GET", "/readyz");
    expect(ready.status).toBe(503);
    const body = bodyOf<Ready>(ready);
    expect(body.status).toBe("saturated");
    expect(body.executions).toMatchObject({ held: 3, capacity: 3, running: 3 });
    expect(body.workers.threads).toBeGreaterThan(0);
    expect(body.event_loop_delay_ms.p99Ms).toBeTypeOf("number");
  });

  it("exposes the held executions, the worker queue and event-loop delay in /metrics", async () => {
    const res = await server.request("GET", "/metrics");
    expect(res.text).toMatch(/^skillport_executions_pending\{measure="held"\} 3$/m);
    expect(res.text).toMatch(/^skillport_executions_pending\{measure="capacity"\} 3$/m);
    expect(res.text).toMatch(/^skillport_worker_pool\{measure="queued"\} 0$/m);
    expect(res.text).toMatch(/^skillport_worker_pool\{measure="threads"\} \d+$/m);
    expect(res.text).toMatch(/^skillport_executions_in_progress\{state="queued"\} \d+$/m);
    expect(res.text).toMatch(/^skillport_nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it("admits again as soon as an execution ends", async () => {
    const [held] = await listed(first);
    expect(held).toBeDefined();
    expect((await cancel(first, held?.id ?? "")).status).toBe(200);
    expect((await server.request("GET", "/readyz")).status).toBe(200);
    const again = await wait(first);
    expect(again.status, again.text).toBe(202);
    for (const key of [first, second]) {
      for (const record of await listed(key)) {
        if (record.status === "running" || record.status === "queued") await cancel(key, record.id);
      }
    }
  });

  it("answers an idempotent repeat at the cap, counts no 429 against the rate limit, and runs a refused Idempotency-Key later", async () => {
    // 98 a day: the window with the fewest remaining, so the headers describe it; a limit
    // under 200 is counted exactly, request by request.
    const capped = await server.createKey({
      name: "capped",
      owner: "four",
      plan: "enterprise",
      limitMinute: 1000,
      limitDay: 98,
    });
    const math = (idempotencyKey: string) =>
      server.request("POST", "/v1/execute", {
        key: capped.secret,
        json: { skill_id: "math.evaluate", params: { expression: "6*7" } },
        headers: { "idempotency-key": idempotencyKey },
      });
    const remaining = (res: { headers: Headers }) => Number(res.headers.get("x-ratelimit-remaining"));

    const original = await math("replayed");
    expect(original.status, original.text).toBe(200);
    const held = await Promise.all([wait(capped), wait(capped)]);
    for (const res of held) expect(res.status, res.text).toBe(202);
    const left = Math.min(...held.map(remaining));

    const refused = await math("refused-first");
    expectError(refused, 429, "concurrency_limit_exceeded");
    // Its own headers say it did not count.
    expect(remaining(refused)).toBe(left);
    const replay = await math("replayed");
    expect(replay.status, replay.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(replay).id).toBe(bodyOf<ExecutionRecord>(original).id);
    // The replay counted; the 429 before it did not.
    expect(remaining(replay)).toBe(left - 1);

    const [one, two] = held.map((res) => bodyOf<ExecutionRecord>(res).id);
    expect((await cancel(capped, one ?? "")).status).toBe(200);
    // The refused request left no idempotency entry behind (else: 409 idempotency_in_progress).
    const later = await math("refused-first");
    expect(later.status, later.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(later).status).toBe("completed");
    expect((await cancel(capped, two ?? "")).status).toBe(200);
  });
});
