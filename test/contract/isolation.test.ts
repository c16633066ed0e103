import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

// Issue 7, "Isolation": built-in skills that block a thread (a CPU-heavy expression, a
// catastrophic regular expression, a heap-exhausting product) run in worker threads; the
// server keeps answering, timeouts fire, and the pool recovers.
// Many seconds of arithmetic in a few MB (an LU decomposition of 800 × 800): it must hit
// its timeout, never the 256 MB memory limit, whatever the garbage collector does.
const CPU_HEAVY = "det(identity(800) + ones(800, 800))";
const MEMORY_HEAVY = "size(kron(ones(100, 100), ones(100, 100)))"; // 10^8 elements: far over 256 MB
const CATASTROPHIC = { schema: { type: "string", pattern: "^(a+)+$" }, data: `${"a".repeat(40)}!` };

describe("contract: isolation of skills that block", { timeout: 120_000 }, () => {
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    server = await startServer({ env: { SKILLPORT_WORKER_THREADS: "2", SKILLPORT_WORKER_MEMORY_MB: "256" } });
    key = await server.createRoomyKey({ name: "isolation" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  const execute = (json: Record<string, unknown>) =>
    server.request("POST", "/v1/execute", { key: key.secret, json });
  const record = async (id: string) =>
    bodyOf<ExecutionRecord>(await server.request("GET", `/v1/executions/${id}`, { key: key.secret }));

  it("keeps answering other requests while a CPU-bound execution runs in a worker, and cancels it", async () => {
    const started = await execute({
      skill_id: "math.evaluate",
      params: { expression: CPU_HEAVY },
      async: true,
      timeout_ms: 20_000,
    });
    expect(started.status, started.text).toBe(202);
    const { id } = bodyOf<ExecutionRecord>(started);
    await eventually(async () => ((await record(id)).status === "running" ? true : undefined));

    // Served while the heavy execution is still running: discovery, a light skill, and
    // another isolated skill on the second worker.
    const discover = await server.request("POST", "/v1/discover", {
      key: key.secret,
      json: { query: "evaluate math" },
    });
    expect(discover.status).toBe(200);
    const light = await execute({ skill_id: "message.send", params: { channel: "ops", text: "still here" } });
    expect(bodyOf<ExecutionRecord>(light).status).toBe("completed");
    const small = await execute({ skill_id: "math.evaluate", params: { expression: "6 * 7" } });
    expect(bodyOf<ExecutionRecord>(small)).toMatchObject({ status: "completed", result: { value: 42 } });
    expect((await record(id)).status).toBe("running");

    const cancelled = await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
    expect(bodyOf<ExecutionRecord>(cancelled).status).toBe("cancelled");
  });

  it("ends a synchronous CPU-bound execution timed_out at its timeout instead of when the work ends", async () => {
    const res = await execute({
      skill_id: "math.evaluate",
      params: { expression: CPU_HEAVY },
      timeout_ms: 500,
    });
    expect(res.status, res.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(res)).toMatchObject({
      status: "timed_out",
      success: false,
      error: { code: "execution_timeout" },
    });
  });

  it("times out a catastrophic regular expression (json.validate with a user pattern)", async () => {
    const res = await execute({ skill_id: "json.validate", params: CATASTROPHIC, timeout_ms: 500 });
    expect(bodyOf<ExecutionRecord>(res)).toMatchObject({
      status: "timed_out",
      error: { code: "execution_timeout" },
    });
  });

  it("fails an execution that exceeds its worker's memory limit, with a message saying so", async () => {
    const res = await execute({ skill_id: "math.evaluate", params: { expression: MEMORY_HEAVY } });
    const failed = bodyOf<ExecutionRecord>(res);
    expect(failed).toMatchObject({ status: "failed", success: false, error: { code: "execution_failed" } });
    expect(failed.error?.message).toContain("memory limit of 256 MB");
  });

  it("stays healthy after its workers were terminated: every worker serves again", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        execute({ skill_id: "math.evaluate", params: { expression: `${i} + 1` } }).then(
          (res) => bodyOf<ExecutionRecord>(res).result,
        ),
      ),
    );
    expect(results).toEqual(Array.from({ length: 6 }, (_, i) => expect.objectContaining({ value: i + 1 })));
    const ready = bodyOf<{ workers: { threads: number } }>(await server.request("GET", "/readyz"));
    expect(ready.workers.threads).toBe(2);
  });

  // Audit 22, security #2: with as many catastrophic patterns as threads, one owner kept
  // every thread until their 60 s timeouts, and another owner's text.stats ended timed_out
  // after 30 s without having run, its record looking like a 30 s run.
  it("does not let one owner's catastrophic regular expressions starve another owner's isolated skills", async () => {
    const mallory = await server.createRoomyKey({ name: "flood", owner: "mallory" });
    const bob = await server.createRoomyKey({ name: "bystander", owner: "bob" });
    const flood: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.request("POST", "/v1/execute", {
        key: mallory.secret,
        json: { skill_id: "json.validate", params: CATASTROPHIC, async: true, timeout_ms: 60_000 },
      });
      expect(res.status, res.text).toBe(202);
      flood.push(bodyOf<ExecutionRecord>(res).id);
    }
    const asBob = (timeout_ms: number) =>
      server.request("POST", "/v1/execute", {
        key: bob.secret,
        json: { skill_id: "text.stats", params: { text: "hello world" }, timeout_ms },
      });
    try {
      // Two of mallory's runs hold both threads, her third waits for one.
      await eventually(async () => {
        const ready = bodyOf<{ workers: { queued: number } }>(await server.request("GET", "/readyz"));
        return ready.workers.queued === 1 ? true : undefined;
      });
      // Audit 23, changes #9: the one waiting for a thread is running (its timeout counts),
      // but has not started: no started_at, no latency_ms.
      const mallorys = async () =>
        Promise.all(
          flood.map(async (id) =>
            bodyOf<ExecutionRecord>(
              await server.request("GET", `/v1/executions/${id}`, { key: mallory.secret }),
            ),
          ),
        );
      const notStarted = (await mallorys()).filter((record) => record.started_at === null);
      expect(notStarted).toHaveLength(1);
      expect(notStarted[0]).toMatchObject({ status: "running", latency_ms: null });
      // A run whose timeout comes before a thread can be reclaimed for it says it never started.
      const starved = bodyOf<ExecutionRecord>(await asBob(1_000));
      expect(starved).toMatchObject({
        status: "timed_out",
        error: { code: "execution_timeout" },
        started_at: null,
        latency_ms: null,
      });
      expect(starved.error?.message).toContain("never started");
      expect(starved.error?.message).toContain("worker thread");
      // One with time to wait gets a thread taken back from mallory within seconds, and runs.
      const asked = Date.now();
      const served = bodyOf<ExecutionRecord>(await asBob(30_000));
      expect(served, JSON.stringify(served.error)).toMatchObject({
        status: "completed",
        result: { words: 2 },
      });
      expect(Date.now() - asked).toBeLessThan(15_000);
      // Audit 23, changes #5: the run stopped is mallory's more recent one on a thread (the
      // least work lost), ended as preempted, not as a failure of the skill.
      const afterReclaim = await mallorys();
      const stopped = afterReclaim.find((record) => record.status === "failed");
      expect(stopped).toMatchObject({ error: { code: "execution_interrupted" } });
      expect(stopped?.error?.message).toContain("preempted");
      expect(stopped?.error?.message).toContain("to free the thread for another owner's run");
      const onThread = afterReclaim.find(
        (record) => record.status === "running" && record.started_at !== null,
      );
      expect(Date.parse(stopped?.started_at ?? "")).toBeGreaterThan(Date.parse(onThread?.started_at ?? ""));
      // The freed thread is kept for bob: his next run does not wait for one, and stops nothing.
      const again = bodyOf<ExecutionRecord>(await asBob(30_000));
      expect(again).toMatchObject({ status: "completed" });
      expect((await mallorys()).filter((record) => record.status === "failed")).toHaveLength(1);
    } finally {
      for (const id of flood) {
        await server.request("POST", `/v1/executions/${id}/cancel`, { key: mallory.secret });
      }
    }
  });

  // Audit 22, security #2, what was left of it: each async execution held one of the 16
  // slots of SKILLPORT_ASYNC_CONCURRENCY from its start to its end, waiting for a thread
  // included, so one owner's 16 long runs kept every other owner's async executions
  // queued until they ended (catastrophic patterns, or `util.wait`, up to 300 s).
  describe("async executions of one owner holding every slot", () => {
    const SLOTS = 16;
    const flood = async (mallory: CreatedKey, json: Record<string, unknown>) => {
      const ids: string[] = [];
      for (let i = 0; i < SLOTS; i++) {
        const res = await server.request("POST", "/v1/execute", {
          key: mallory.secret,
          json: { ...json, async: true, timeout_ms: 120_000 },
        });
        expect(res.status, res.text).toBe(202);
        ids.push(bodyOf<ExecutionRecord>(res).id);
      }
      // Every one of them running: she holds every slot.
      await eventually(async () => {
        const records = await Promise.all(
          ids.map(async (id) =>
            bodyOf<ExecutionRecord>(
              await server.request("GET", `/v1/executions/${id}`, { key: mallory.secret }),
            ),
          ),
        );
        return records.every((record) => record.status === "running") ? true : undefined;
      });
      return ids;
    };
    /** Bob's async text.stats, as it stands once ended (or after 40 s), and how long that took. */
    const bobsAsyncRun = async (bob: CreatedKey) => {
      const asked = Date.now();
      const res = await server.request("POST", "/v1/execute", {
        key: bob.secret,
        json: { skill_id: "text.stats", params: { text: "hello world" }, async: true, timeout_ms: 60_000 },
      });
      expect(res.status, res.text).toBe(202);
      const { id } = bodyOf<ExecutionRecord>(res);
      let record = bodyOf<ExecutionRecord>(res);
      for (let polls = 0; polls < 2 && (record.status === "queued" || record.status === "running"); polls++) {
        const got = await server.request("GET", `/v1/executions/${id}?wait=20`, { key: bob.secret });
        record = bodyOf<ExecutionRecord>(got);
      }
      return { record, tookMs: Date.now() - asked };
    };
    const cancelAll = async (mallory: CreatedKey, ids: string[]) => {
      for (const id of ids)
        await server.request("POST", `/v1/executions/${id}/cancel`, { key: mallory.secret });
    };

    it("runs another owner's async execution within seconds while one owner's catastrophic patterns hold every slot", async () => {
      const mallory = await server.createRoomyKey({ name: "async flood", owner: "mallory-async" });
      const bob = await server.createRoomyKey({ name: "async bystander", owner: "bob-async" });
      const ids = await flood(mallory, { skill_id: "json.validate", params: CATASTROPHIC });
      try {
        // Two hold the threads; the other fourteen wait for one, each holding a slot.
        await eventually(async () => {
          const ready = bodyOf<{ workers: { queued: number } }>(await server.request("GET", "/readyz"));
          return ready.workers.queued === SLOTS - 2 ? true : undefined;
        });
        const { record, tookMs } = await bobsAsyncRun(bob);
        expect(record, JSON.stringify(record.error)).toMatchObject({
          status: "completed",
          result: { words: 2 },
        });
        // A slot after 5 s (a run waiting for a thread gives its own up), a thread 5 s later.
        expect(tookMs).toBeLessThan(25_000);
      } finally {
        await cancelAll(mallory, ids);
      }
    });

    it("stops one owner's most recent run to free a slot for another owner's async execution, saying why", async () => {
      const mallory = await server.createRoomyKey({ name: "async waits", owner: "mallory-waits" });
      const bob = await server.createRoomyKey({ name: "async bystander", owner: "bob-waits" });
      const ids = await flood(mallory, { skill_id: "util.wait", params: { ms: 120_000 } });
      try {
        const { record, tookMs } = await bobsAsyncRun(bob);
        expect(record, JSON.stringify(record.error)).toMatchObject({
          status: "completed",
          result: { words: 2 },
        });
        expect(tookMs).toBeLessThan(15_000);
        const records = await Promise.all(
          ids.map(async (id) =>
            bodyOf<ExecutionRecord>(
              await server.request("GET", `/v1/executions/${id}`, { key: mallory.secret }),
            ),
          ),
        );
        // Her most recent run is the one stopped (the least work lost), as preempted.
        const stopped = records.filter((r) => r.status === "failed");
        expect(stopped).toHaveLength(1);
        expect(stopped[0]).toMatchObject({ error: { code: "execution_interrupted" } });
        expect(stopped[0]?.error?.message).toContain(
          "to free its slot for another owner's asynchronous execution",
        );
        const latestStart = Math.max(...records.map((r) => Date.parse(r.started_at ?? "")));
        expect(Date.parse(stopped[0]?.started_at ?? "")).toBe(latestStart);
        expect(records.filter((r) => r.status === "running")).toHaveLength(SLOTS - 1);
      } finally {
        await cancelAll(mallory, ids);
      }
    });
  });
});
