import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import type { ProgressUpdate, Skill, SkillContext } from "../../src/core/skills/skill.js";
import { WorkerPoolExecutor, type WorkerPoolOptions } from "../../src/isolation/worker-pool-executor.js";
import { makeCore } from "../core/make-core.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { fixtureSkills } from "./fixtures/skills.mjs";

// Issue 7, "Isolation": the real pool of worker threads (the compiled worker entry, as
// production runs it) behind the real core on a real SQLite file.
const WORKER_URL = new URL("../../dist/src/isolation/skill-worker.js", import.meta.url);
const HOST_URL = new URL("../../dist/src/isolation/skill-host.js", import.meta.url);
const FIXTURES_URL = new URL("./fixtures/skills.mjs", import.meta.url);
const MEMORY_MB = 48;

/** The skill host processes this test process started (Linux: read from /proc). */
function skillHostPids(): number[] {
  const children = readdirSync(`/proc/${process.pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("skill-host");
    } catch {
      return false; // it ended meanwhile
    }
  });
}

/** The process group of a process (Linux: field 5 of /proc/PID/stat, after the command's parentheses). */
function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

describe("the worker pool", { timeout: 60_000 }, () => {
  let core: Awaited<ReturnType<typeof makeCore>>;
  let executor: WorkerPoolExecutor;
  let key: ApiKey;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    if (!existsSync(WORKER_URL)) throw new Error(`${WORKER_URL.pathname} is missing: run \`npm run build\``);
    const logger = capturingLogger(lines);
    executor = new WorkerPoolExecutor({
      hostUrl: HOST_URL,
      workerUrl: WORKER_URL,
      sources: [{ moduleUrl: FIXTURES_URL, skills: fixtureSkills as unknown as Skill[] }],
      threads: 2,
      memoryMb: MEMORY_MB,
      maxQueue: 100,
      logger,
      abortGraceMs: 100,
    });
    core = await makeCore(fixtureSkills as unknown as Skill[], { clock: systemClock, executor, logger });
    key = await core.keyFor();
  });
  afterAll(() => core?.cleanup());

  const run = (
    skill_id: string,
    params: Record<string, unknown>,
    extra: { async?: boolean; timeout_ms?: number } = {},
  ) => core.run(key, skill_id, params, extra);

  it("runs a skill that is not light in a worker thread, relaying progress, logs, messages and memory", async () => {
    const progress: ProgressUpdate[] = [];
    const { record } = await core.skillport.executions.execute(
      key,
      { skill_id: "fixture.chatty", params: { text: "hello" }, async: false, timeout_ms: 30_000 },
      { onProgress: (update) => progress.push(update) },
    );
    expect(record.status, JSON.stringify(record.error)).toBe("completed");
    expect(record.result).toMatchObject({
      stored: { text: "hello" },
      listed: 1,
      has: [true, false],
      thread: "worker",
    });
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "half" },
      { progress: 2, total: 2 },
    ]);
    // Written through the main thread's store, under the key's owner.
    expect((await core.skillport.store.memory.get(key.owner, "last"))?.value).toEqual({ text: "hello" });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "info",
        msg: "storing",
        step: "store",
        text: "hello",
        execution_id: record.id,
      }),
    );
  });

  // A worker's progress is replayed on the main thread, inside the skill host's message
  // handler: an update that is no object (null) threw there, outside any run.
  it("tells a worker skill's valid progress only, and keeps serving after progress no caller can be told", async () => {
    const progress: ProgressUpdate[] = [];
    const { record } = await core.skillport.executions.execute(
      key,
      { skill_id: "fixture.odd_progress", params: {}, async: false, timeout_ms: 30_000 },
      { onProgress: (update) => progress.push(update) },
    );
    expect(record.status, JSON.stringify(record.error)).toBe("completed");
    expect(progress).toEqual([{ progress: 1 }, { progress: 2, total: 2 }]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        execution_id: record.id,
        problem: "the update is null, not an object",
      }),
    );
    expect((await run("fixture.chatty", { text: "after" })).record.status).toBe("completed");
  });

  it("runs a skill declared light async I/O on the main thread", async () => {
    const { record } = await run("fixture.light", {});
    expect(record.result).toEqual({ thread: "main" });
  });

  it("runs a call its isolated skill judges light on the main thread, and every other call in a worker", async () => {
    expect((await run("fixture.judged", { size: "small" })).record.result).toEqual({ thread: "main" });
    expect((await run("fixture.judged", { size: "large" })).record.result).toEqual({ thread: "worker" });
    // A judgement that throws counts as "not light": the call is isolated, not failed.
    expect((await run("fixture.judged", { size: "odd" })).record.result).toEqual({ thread: "worker" });
  });

  it("times out a skill stuck in a CPU loop while the main thread's event loop keeps turning", async () => {
    let settled = false;
    const pending = run("fixture.spin", {}, { timeout_ms: 1_000 }).finally(() => {
      settled = true;
    });
    // A timer of the main thread fires while the loop still spins in its worker.
    const settledWhenTimerFired = await new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(settled), 20),
    );
    const { record } = await pending;
    expect(settledWhenTimerFired).toBe(false);
    expect(record).toMatchObject({ status: "timed_out", error: { code: "execution_timeout" } });
  });

  it("replaces a terminated worker: the pool keeps its threads and serves the next run", async () => {
    await run("fixture.spin", {}, { timeout_ms: 200 });
    await run("fixture.spin", {}, { timeout_ms: 200 });
    const { record } = await run("fixture.chatty", { text: "after" });
    expect(record.status).toBe("completed");
    expect(executor.load.threads).toBe(2);
  });

  it("ends a cancelled CPU loop as cancelled", async () => {
    const { record } = await run("fixture.spin", {}, { async: true });
    const running = await core.skillport.queries.get(key, record.id, 0);
    expect(["queued", "running"]).toContain(running.status);
    await eventuallyRunning(record.id);
    const cancelled = await core.skillport.queries.cancel(key, record.id);
    expect(cancelled).toMatchObject({ status: "cancelled", error: { code: "execution_cancelled" } });
  });

  it("ends a cooperative skill through its own signal with the reason the main thread gave", async () => {
    const { record } = await run("fixture.patient", {}, { timeout_ms: 100 });
    expect(record).toMatchObject({ status: "timed_out", error: { code: "execution_timeout" } });
  });

  it("fails a run that exhausts its worker's heap with a clear message, and keeps serving", async () => {
    const { record } = await run("fixture.hog", {});
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    expect(record.error?.message).toContain(`memory limit of ${MEMORY_MB} MB`);
    expect((await run("fixture.light", {})).record.status).toBe("completed");
    expect((await run("fixture.chatty", { text: "still" })).record.status).toBe("completed");
  });

  it("fails a run whose heap blow-up aborts the process holding its worker, and the server keeps serving", async () => {
    const running = await run("fixture.spin", {}, { async: true, timeout_ms: 60_000 });
    // Handed to the host first, so that the abort below takes it down with it.
    await eventuallyRunning(running.record.id);
    const { record } = await run("fixture.abort", {});
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    expect(record.error?.message).toContain(`memory limit of ${MEMORY_MB} MB`);
    // The run sharing that process failed with it, on the record, rather than hanging.
    const shared = await core.skillport.queries.get(key, running.record.id, 10);
    expect(shared).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: "error", msg: expect.stringMatching(/skill host process stopped/) }),
    );
    expect((await run("fixture.chatty", { text: "after" })).record.status).toBe("completed");
    expect(executor.load.threads).toBe(2);
  });

  it("keeps running through SIGINT, SIGTERM and SIGHUP sent to the skill host, as to the server's process group", async () => {
    // Ctrl-C, systemd and Procfile runners signal the whole group; the server's graceful
    // shutdown decides when runs end, not the signal reaching the host.
    // A host started (and so past installing its handlers) before the run to be signalled.
    expect((await run("fixture.busy", { ms: 0 })).record.status).toBe("completed");
    const running = await run("fixture.busy", { ms: 1_500 }, { async: true, timeout_ms: 60_000 });
    await eventuallyRunning(running.record.id);
    const [host] = skillHostPids();
    expect(host).toBeDefined();
    // In a process group of its own, which signals to the server's group do not reach.
    expect(processGroupOf(host as number)).not.toBe(processGroupOf(process.pid));
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.kill(host as number, signal);
    const record = await core.skillport.queries.get(key, running.record.id, 30_000);
    expect(record, JSON.stringify(record)).toMatchObject({ status: "completed", result: { done: true } });
    expect(skillHostPids()).toEqual([host]);
  });

  it("logs what the skill host writes on stderr as warn entries naming their source, credentials masked, not as raw text", async () => {
    // Inherited, the host's stderr reached the operator as raw text among the JSON lines.
    const text = "noisy: cannot reach https://admin:hunter2@db.example/app\r\n\n  second line\n";
    expect((await run("fixture.noisy", { text })).record.status).toBe("completed");
    const written = (found: string) =>
      expect.objectContaining({ level: "warn", source: "skill_host", stream: "stderr", text: found });
    await vi.waitFor(() => expect(lines).toContainEqual(written("  second line")), { timeout: 10_000 });
    expect(lines).toContainEqual(written("noisy: cannot reach https://admin:[redacted]@db.example/app"));
    expect(JSON.stringify(lines)).not.toContain("hunter2");
    // The blank line between them is no entry.
    expect(lines.filter((line) => line.source === "skill_host")).toHaveLength(2);
  });

  it("fails the runs of a skill host ended by another signal, naming it rather than memory", async () => {
    const running = await run("fixture.busy", { ms: 5_000 }, { async: true, timeout_ms: 60_000 });
    await eventuallyRunning(running.record.id);
    for (const pid of skillHostPids()) process.kill(pid, "SIGUSR2");
    const record = await core.skillport.queries.get(key, running.record.id, 30_000);
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    expect(record?.error?.message).toContain("ended by SIGUSR2");
    expect(record?.error?.message).not.toContain("memory");
    expect((await run("fixture.chatty", { text: "after" })).record.status).toBe("completed");
  });

  it("fails a run that fills one array past its heap, whether Node stops the worker or the process holding it", async () => {
    const { record } = await run("fixture.grow", {});
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    expect(record.error?.message).toContain(`memory limit of ${MEMORY_MB} MB`);
    expect((await run("fixture.chatty", { text: "after the blow-up" })).record.status).toBe("completed");
  });

  it("shows a SkillError's message to the caller and hides an unexpected error's internals", async () => {
    const refused = (await run("fixture.refuse", { unexpected: false })).record;
    expect(refused.error).toEqual({ code: "execution_failed", message: "the fixture refused its input" });
    const broken = (await run("fixture.refuse", { unexpected: true })).record;
    expect(broken.error?.code).toBe("execution_failed");
    expect(broken.error?.message).not.toContain("/srv/secret");
    expect(lines).toContainEqual(
      expect.objectContaining({ level: "error", msg: "skill threw an unexpected error" }),
    );
  });

  it("fails a run whose result JSON cannot carry, saying where and what, and keeps serving", async () => {
    for (const [value, found] of [
      ["function", "a function"],
      ["bigint", "a bigint"],
    ]) {
      const { record } = await run("fixture.not_json", { value });
      expect(record).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
      expect(record.error?.message).toContain(
        `fixture.not_json returned a value JSON cannot carry at result.value (${found}`,
      );
      expect((await core.skillport.store.executions.get(record.id))?.record.status).toBe("failed");
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "error",
          msg: "skill returned a value JSON cannot carry",
          execution_id: record.id,
        }),
      );
    }
    expect((await run("fixture.chatty", { text: "after" })).record.status).toBe("completed");
  });

  async function eventuallyRunning(id: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if ((await core.skillport.store.executions.get(id))?.record.status === "running") return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${id} never ran`);
  }
});

const skills = fixtureSkills as unknown as Skill[];
const skill = (id: string) => skills.find((candidate) => candidate.id === id) as Skill;

/** A pool of one thread on the fixture skills, for runs invoked on the executor directly. */
function oneThreadPool(
  lines: Record<string, unknown>[],
  options: Partial<WorkerPoolOptions> = {},
): WorkerPoolExecutor {
  return new WorkerPoolExecutor({
    hostUrl: HOST_URL,
    workerUrl: WORKER_URL,
    sources: [{ moduleUrl: FIXTURES_URL, skills }],
    threads: 1,
    memoryMb: MEMORY_MB,
    maxQueue: 100,
    logger: capturingLogger(lines),
    abortGraceMs: 100,
    ...options,
  });
}

/** The context of a run invoked on the executor directly (no core, no owner data). */
function directContext(
  lines: Record<string, unknown>[],
  executionId: string,
  controller: AbortController,
  owner: string,
): SkillContext {
  const unused = () => Promise.reject(new Error("not in this test"));
  return {
    signal: controller.signal,
    progress: () => {},
    logger: capturingLogger(lines, { execution_id: executionId }),
    executionId,
    owner,
    config: {},
    messages: { send: unused, list: unused, has: unused },
    memory: { get: unused, set: unused, delete: unused, list: unused },
  };
}

describe("the worker pool when a run's termination races its answer", { timeout: 60_000 }, () => {
  const lines: Record<string, unknown>[] = [];
  const contextFor = (executionId: string, controller: AbortController, owner = "race") =>
    directContext(lines, executionId, controller, owner);
  let executor: WorkerPoolExecutor;

  beforeAll(async () => {
    executor = oneThreadPool(lines);
    // Started and warm: the runs below must find the one thread ready.
    await executor.invoke(skill("fixture.busy"), { ms: 0 }, contextFor("exec_warm", new AbortController()));
  });
  afterAll(() => executor?.close());

  it("runs the next queued run to completion, once, when the terminated worker answered at the last moment", async () => {
    // The first run ignores its (already fired) signal and answers after 300 ms; the second
    // waits in the pool's queue for the only thread. The main thread stays blocked past
    // both the grace period (100 ms) and that answer. When the pool lived on the main
    // thread, this made the grace timer terminate the worker just before its answer freed
    // it to the queue (tinypool 2.2 then hands the next run to the dying worker, which
    // runTask submits again). The pool now lives in the skill host, whose event loop this
    // test cannot block: the race may or may not happen there, and either way the second
    // run must complete, and run once.
    const dir = await mkdtemp(join(tmpdir(), "skillport-race-"));
    const [firstMark, secondMark] = [join(dir, "first.log"), join(dir, "second.log")];
    const aborted = new AbortController();
    aborted.abort("timeout");
    const first = executor.invoke(
      skill("fixture.busy"),
      { ms: 300, mark: firstMark },
      contextFor("exec_first", aborted),
    );
    const second = executor.invoke(
      skill("fixture.busy"),
      { ms: 0, mark: secondMark },
      contextFor("exec_second", new AbortController()),
    );
    const firstSettled = first.then(
      () => "answered",
      () => "stopped",
    );
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const started = Date.now();
        const finished = () => existsSync(firstMark) && readFileSync(firstMark, "utf8").includes("finished");
        while (!finished() && Date.now() - started < 10_000) {}
        // Time for the answer to be posted, and the grace period long past.
        const until = Math.max(Date.now() + 50, started + 200);
        while (Date.now() < until) {}
        resolve();
      }),
    );
    await firstSettled;
    await expect(second).resolves.toEqual({ done: true });
    // Handed first to a dying worker or not, it ran once.
    expect(await readFile(secondMark, "utf8")).toBe("started\nfinished\n");
  });

  it("gives the next free thread to another owner's run, not to the rest of one owner's burst", async () => {
    const finished: string[] = [];
    const runFor = (owner: string, label: string, ms: number) =>
      executor
        .invoke(skill("fixture.busy"), { ms }, contextFor(`exec_${label}`, new AbortController(), owner))
        .then(() => finished.push(label));
    const burst = ["a1", "a2", "a3"].map((label) => runFor("alice", label, 200));
    // Bob asks once alice's first run holds the only thread and her others wait.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([...burst, runFor("bob", "b1", 0)]);
    expect(finished).toEqual(["a1", "b1", "a2", "a3"]);
  });
});

// Audit 22, security #2: one owner's runs that end only at their timeout (catastrophic
// regular expressions, here a CPU loop) held every thread, and another owner's runs ended
// timed_out after their whole timeout without having run, looking like slow runs.
describe("the worker pool when one owner holds every thread", { timeout: 60_000 }, () => {
  const RECLAIM_AFTER_MS = 1_000;
  const lines: Record<string, unknown>[] = [];
  let core: Awaited<ReturnType<typeof makeCore>>;
  let executor: WorkerPoolExecutor;
  let alice: ApiKey;
  let bob: ApiKey;

  // A pool each: one whose thread was reclaimed from alice keeps her capped for a while (FairSlots).
  beforeEach(async () => {
    executor = new WorkerPoolExecutor({
      hostUrl: HOST_URL,
      workerUrl: WORKER_URL,
      sources: [{ moduleUrl: FIXTURES_URL, skills }],
      threads: 2,
      memoryMb: MEMORY_MB,
      maxQueue: 100,
      logger: capturingLogger(lines),
      abortGraceMs: 100,
      reclaimAfterMs: RECLAIM_AFTER_MS,
    });
    core = await makeCore(skills, { clock: systemClock, executor, logger: capturingLogger(lines) });
    alice = await core.keyFor({ owner: "alice" });
    bob = await core.keyFor({ owner: "bob" });
    // Started and warm: the runs below must find both threads ready.
    expect((await core.run(bob, "fixture.busy", { ms: 0 })).record.status).toBe("completed");
  });
  afterEach(() => core?.cleanup());

  /** Alice's two runs (CPU loops unless told), once both hold a thread. */
  async function aliceHoldsEveryThread(skillId = "fixture.spin"): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      ids.push((await core.run(alice, skillId, {}, { async: true, timeout_ms: 60_000 })).record.id);
    }
    // Running, and none waiting for a thread (the previous test's threads may still be freeing).
    for (let i = 0; ; i++) {
      const stored = await Promise.all(ids.map((id) => core.skillport.store.executions.get(id)));
      if (stored.every((one) => one?.record.status === "running") && executor.load.queued === 0) break;
      if (i > 400) throw new Error("alice's runs never both held a thread");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return ids;
  }

  const cancelAll = (ids: string[]) =>
    Promise.all(ids.map((id) => core.skillport.queries.cancel(alice, id).catch(() => undefined)));

  it("ends another owner's run that never got a thread as never started, not as a run as long as its timeout", async () => {
    const ids = await aliceHoldsEveryThread();
    try {
      // Its timeout comes before a thread could be reclaimed for it.
      const { record } = await core.run(bob, "fixture.busy", { ms: 0 }, { timeout_ms: 300 });
      expect(record).toMatchObject({
        status: "timed_out",
        success: false,
        started_at: null,
        latency_ms: null,
        error: { code: "execution_timeout" },
      });
      expect(record.error?.message).toMatch(
        /never started: it waited its whole timeout of 300 ms for a worker thread/,
      );
    } finally {
      await cancelAll(ids);
    }
  });

  it("reclaims a thread for another owner's waiting run, ending the stopped run preempted with a record that says why", async () => {
    const ids = await aliceHoldsEveryThread();
    try {
      const asked = performance.now();
      const { record } = await core.run(bob, "fixture.busy", { ms: 0 }, { timeout_ms: 20_000 });
      expect(record, JSON.stringify(record.error)).toMatchObject({
        status: "completed",
        result: { done: true },
      });
      // A reclaim after RECLAIM_AFTER_MS (looked for every second at most), then the grace period.
      expect(performance.now() - asked).toBeLessThan(RECLAIM_AFTER_MS + 5_000);
      const alices = await Promise.all(ids.map((id) => core.skillport.store.executions.get(id)));
      const stopped = alices.filter((stored) => stored?.record.status === "failed");
      // One of alice's runs gave its thread up (the more recent: it lost the least work); the
      // other kept its thread. Nothing was wrong with it, and its code says so (audit 23, changes #5).
      expect(stopped).toHaveLength(1);
      expect(stopped[0]?.record).toMatchObject({ success: false, error: { code: "execution_interrupted" } });
      expect(stopped[0]?.record.started_at).not.toBeNull();
      expect(stopped[0]?.record.error?.message).toMatch(
        /^The execution was preempted after \d+\.\d s on a worker thread: it was stopped to free the thread for another owner's run .* Nothing was wrong with it: run it again/,
      );
      expect(stopped[0]?.record.id).toBe(ids[1]);
      expect(alices.filter((stored) => stored?.record.status === "running")).toHaveLength(1);
    } finally {
      await cancelAll(ids);
    }
  });

  // The two ways a run was preempted disagreed (session 24): its async slot's reclaim
  // decided its outcome at once, as a timeout does, but its thread's reclaim waited for
  // the worker's answer, and a skill that answered the stop with what it had was recorded
  // `completed` with that partial result.
  it("ends a run whose thread is reclaimed preempted even when its skill answers the stop with a result", async () => {
    const ids = await aliceHoldsEveryThread("fixture.partial");
    try {
      const { record } = await core.run(bob, "fixture.busy", { ms: 0 }, { timeout_ms: 20_000 });
      expect(record.status).toBe("completed");
      const stopped = await core.skillport.store.executions.get(ids[1] as string);
      expect(stopped?.record).toMatchObject({
        status: "failed",
        result: null,
        error: {
          code: "execution_interrupted",
          message: expect.stringMatching(/^The execution was preempted/),
        },
      });
    } finally {
      await cancelAll(ids);
    }
  });
});

describe("the worker pool when its skill host stops answering", { timeout: 60_000 }, () => {
  const lines: Record<string, unknown>[] = [];
  const contextFor = (executionId: string) =>
    directContext(lines, executionId, new AbortController(), "frozen");
  let executor: WorkerPoolExecutor;

  beforeAll(async () => {
    executor = oneThreadPool(lines, { unresponsiveAfterMs: 2_000 });
  });
  afterAll(() => executor?.close());

  it("kills a host that stopped answering, fails its runs saying so, and serves the next run from a new one", async () => {
    await executor.invoke(skill("fixture.busy"), { ms: 0 }, contextFor("exec_warm"));
    const [frozen] = skillHostPids();
    expect(frozen).toBeDefined();
    const stuck = executor.invoke(skill("fixture.busy"), { ms: 30_000 }, contextFor("exec_stuck"));
    const outcome = stuck.then(
      () => "answered",
      (err: Error) => err.message,
    );
    process.kill(frozen as number, "SIGSTOP");
    try {
      expect(await outcome).toMatch(/stopped answering and was replaced/);
    } finally {
      try {
        process.kill(frozen as number, "SIGCONT");
      } catch {
        // killed already, as it should be
      }
    }
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: expect.stringMatching(/stopped answering/) }),
    );
    await expect(
      executor.invoke(skill("fixture.busy"), { ms: 0 }, contextFor("exec_after")),
    ).resolves.toEqual({
      done: true,
    });
    expect(skillHostPids()).not.toContain(frozen);
  });
});

describe("the worker pool at shutdown", { timeout: 60_000 }, () => {
  it("a shutdown whose deadline interrupts a run in the skill host logs no error: the run ends interrupted, as intended", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = capturingLogger(lines);
    const executor = new WorkerPoolExecutor({
      hostUrl: HOST_URL,
      workerUrl: WORKER_URL,
      sources: [{ moduleUrl: FIXTURES_URL, skills: fixtureSkills as unknown as Skill[] }],
      threads: 1,
      memoryMb: MEMORY_MB,
      maxQueue: 10,
      logger,
      abortGraceMs: 60_000,
    });
    const core = await makeCore(fixtureSkills as unknown as Skill[], {
      clock: systemClock,
      executor,
      logger,
    });
    const key = await core.keyFor();
    const { record } = await core.run(key, "fixture.spin", {}, { async: true });
    const status = async () => (await core.skillport.store.executions.get(record.id))?.record.status;
    for (let i = 0; i < 200 && (await status()) !== "running"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await status()).toBe("running");
    expect(executor.load.threads).toBe(1);
    // The deadline passes at once; the spinning run is still in the host when it closes.
    await core.skillport.stop(0);
    const ended = await core.skillport.store.executions.get(record.id);
    await core.skillport.close();
    expect(ended?.record).toMatchObject({ status: "failed", error: { code: "execution_interrupted" } });
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  });
});
