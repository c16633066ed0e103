import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { ExecutionRecord } from "../../src/core/execution/record.js";
import type { SkillExecutor } from "../../src/core/execution/skill-executor.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import { gatedThreads } from "./gated-threads.js";
import { makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

// Audit 22, security #2, what was left of it: every async execution held one of the
// SKILLPORT_ASYNC_CONCURRENCY slots from its start to its end, including while it waited
// for a worker thread, so one owner holding every slot with long runs (catastrophic
// patterns up to their 300 s timeouts, or long `util.wait`s) kept every other owner's async
// executions queued until those ended.

const RECLAIM_AFTER_MS = 200;

/** `test.sleep` runs "on a worker thread" (see `gatedThreads`); every other skill at once. */
const gatedSleeps = () => gatedThreads((skill) => skill.id === "test.sleep");

describe("async execution slots shared between owners", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function coreWith(options: { asyncConcurrency: number; executor?: SkillExecutor }) {
    const core = await makeCore(testSkills, {
      clock: systemClock,
      asyncReclaimAfterMs: RECLAIM_AFTER_MS,
      ...options,
    });
    cleanup = core.cleanup;
    const mallory = await core.keyFor({ owner: "mallory" });
    const bob = await core.keyFor({ owner: "bob" });
    const startAsync = async (key: ApiKey, skillId: string, params: Record<string, unknown>) =>
      (await core.run(key, skillId, params, { async: true, timeout_ms: 60_000 })).record.id;
    const stored = async (id: string) => (await core.skillport.store.executions.get(id))?.record;
    const statusOf = async (id: string) => (await stored(id))?.status;
    const until = async (what: () => Promise<boolean>, withinMs = 5_000) => {
      for (const deadline = Date.now() + withinMs; Date.now() < deadline; ) {
        if (await what()) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error("it never happened");
    };
    const ended = (key: ApiKey, id: string, waitMs: number) =>
      core.skillport.queries.get(key, id, waitMs) as Promise<ExecutionRecord>;
    return { core, mallory, bob, startAsync, stored, statusOf, until, ended };
  }

  it("frees the slot of a run waiting for a worker thread for another owner's execution, and that run still runs once", async () => {
    const { executor, open, runs } = gatedSleeps();
    const { mallory, bob, startAsync, stored, statusOf, until, ended } = await coreWith({
      asyncConcurrency: 2,
      executor,
    });
    // Mallory's first two hold both slots, waiting for a thread; her third waits for a slot.
    const flood: string[] = [];
    for (let i = 0; i < 3; i++) flood.push(await startAsync(mallory, "test.sleep", { ms: 0 }));
    await until(async () => (await statusOf(flood[1] as string)) === "running");
    const waiting = await Promise.all(flood.slice(0, 2).map((id) => stored(id)));
    // Audit 23, changes #9: a run waiting for a thread has not started, wherever it is read.
    for (const record of waiting) {
      expect(record).toMatchObject({ status: "running", started_at: null, latency_ms: null });
      expect(await ended(mallory, record?.id as string, 0)).toEqual(record);
    }

    const asked = Date.now();
    const bobs = await startAsync(bob, "test.echo", { text: "bob" });
    expect(await ended(bob, bobs, 5_000)).toMatchObject({ status: "completed", result: { text: "bob" } });
    expect(Date.now() - asked).toBeLessThan(RECLAIM_AFTER_MS + 2_000);

    // The run that gave its slot up (the more recent) goes on waiting for its thread, as
    // the other does, their records unchanged.
    expect(await Promise.all(flood.slice(0, 2).map((id) => stored(id)))).toEqual(waiting);
    const opened = Date.now();
    open();
    for (const id of flood) {
      const record = await ended(mallory, id, 5_000);
      expect(record).toMatchObject({ status: "completed", result: { slept: 0 } });
      expect(runs.get(id)).toBe(1);
      // It started when it got its thread, and ran for a moment: the wait is no part of its latency.
      expect(Date.parse(record.started_at ?? "")).toBeGreaterThanOrEqual(opened);
      expect(opened - Date.parse(record.created_at)).toBeGreaterThanOrEqual(RECLAIM_AFTER_MS);
      expect(record.latency_ms).toBeLessThan(100);
    }
  });

  it("stops the most recent run of the owner holding more than an even share, as preempted, and keeps its slot for the other owner", async () => {
    const { mallory, bob, startAsync, statusOf, until, ended } = await coreWith({ asyncConcurrency: 2 });
    const flood: string[] = [];
    for (let i = 0; i < 3; i++) flood.push(await startAsync(mallory, "test.sleep", { ms: 30_000 }));
    await until(async () => (await statusOf(flood[1] as string)) === "running");

    const bobs = await startAsync(bob, "test.echo", { text: "bob" });
    expect(await ended(bob, bobs, 5_000)).toMatchObject({ status: "completed" });
    // Audit 23, changes #5: the run with the least work done, ended as the service's doing.
    const stopped = await ended(mallory, flood[1] as string, 0);
    expect(stopped).toMatchObject({
      status: "failed",
      success: false,
      error: { code: "execution_interrupted" },
    });
    expect(stopped.error?.message).toMatch(
      /^The execution was preempted after \d+\.\d s: it was stopped to free its slot for another owner's asynchronous execution that had waited \d+\.\d s for one, .* Nothing was wrong with it: run it again/,
    );
    expect(stopped.started_at).not.toBeNull();
    expect(stopped.latency_ms).toBeGreaterThan(0);
    // Bob's next runs find the freed slot kept for them: her third stays queued, and none
    // of hers is stopped again.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, RECLAIM_AFTER_MS));
      const next = await startAsync(bob, "test.echo", { text: `bob ${i}` });
      expect(await ended(bob, next, 5_000)).toMatchObject({ status: "completed" });
    }
    expect(await statusOf(flood[0] as string)).toBe("running");
    expect(await statusOf(flood[2] as string)).toBe("queued");
  });

  it("takes nothing back from an owner alone, nor with a single slot", async () => {
    const alone = await coreWith({ asyncConcurrency: 2 });
    const mine: string[] = [];
    for (let i = 0; i < 3; i++)
      mine.push(await alone.startAsync(alone.mallory, "test.sleep", { ms: 30_000 }));
    await new Promise((resolve) => setTimeout(resolve, RECLAIM_AFTER_MS * 4));
    expect(await Promise.all(mine.map(alone.statusOf))).toEqual(["running", "running", "queued"]);
    await cleanup?.();

    const single = await coreWith({ asyncConcurrency: 1 });
    const held = await single.startAsync(single.mallory, "test.sleep", { ms: 30_000 });
    await single.until(async () => (await single.statusOf(held)) === "running");
    const bobs = await single.startAsync(single.bob, "test.echo", { text: "bob" });
    await new Promise((resolve) => setTimeout(resolve, RECLAIM_AFTER_MS * 4));
    expect([await single.statusOf(held), await single.statusOf(bobs)]).toEqual(["running", "queued"]);
  });
});
