import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { ServiceError } from "../../src/core/errors.js";
import { isTerminal } from "../../src/core/execution/record.js";
import type { SkillExecutor } from "../../src/core/execution/skill-executor.js";
import type { ExecutionStore, Store } from "../../src/core/ports.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { gatedThreads } from "./gated-threads.js";
import { makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

// Audit 22, security #2: a run that waited for a worker thread until its timeout, and never
// ran, ended `timed_out` like a run of the skill as long as its timeout (`started_at` set,
// `latency_ms` 30000): starvation could not be told from a slow skill.

describe("a run that waits for a worker thread", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function coreWith(executor: SkillExecutor, wrapStore?: (store: Store) => Store) {
    // On SQLite where a test's store fails: its store's isOutage recognises the error (the in-memory store never has one).
    const core = await makeCore(testSkills, {
      clock: systemClock,
      executor,
      wrapStore,
      ...(wrapStore && { store: "sqlite" as const }),
    });
    cleanup = core.cleanup;
    return { core, key: await core.keyFor() };
  }

  it("ends timed_out as never started when its timeout passes before it gets one", async () => {
    const { core, key } = await coreWith(gatedThreads().executor);
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { timeout_ms: 200 });
    expect(record).toMatchObject({
      status: "timed_out",
      success: false,
      started_at: null,
      latency_ms: null,
      error: {
        code: "execution_timeout",
        message: expect.stringMatching(
          /^The execution never started: it waited its whole timeout of 200 ms for a worker thread/,
        ),
      },
    });
    expect((await core.skillport.store.executions.get(record.id))?.record).toEqual(record);
  });

  it("ends cancelled before it started when cancelled while it waits", async () => {
    const { core, key } = await coreWith(gatedThreads().executor);
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { async: true });
    for (let i = 0; i < 100; i++) {
      if ((await core.skillport.store.executions.get(record.id))?.record.status === "running") break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cancelled = await core.skillport.queries.cancel(key, record.id);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      started_at: null,
      latency_ms: null,
      error: { code: "execution_cancelled", message: expect.stringContaining("before it started") },
    });
  });

  it("ends interrupted before it started when the service shuts down while it waits", async () => {
    const { core, key } = await coreWith(gatedThreads().executor);
    const pending = core.run(key, "test.echo", { text: "hi" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await core.skillport.stop(0);
    const { record } = await pending;
    expect(record).toMatchObject({
      status: "failed",
      started_at: null,
      latency_ms: null,
      error: {
        code: "execution_interrupted",
        message: expect.stringContaining("before the execution started"),
      },
    });
  });

  it("says, when it timed out after a long wait, how much of its timeout the wait took", async () => {
    const { executor, open } = gatedThreads();
    const { core, key } = await coreWith(executor);
    setTimeout(open, 1_100);
    const { record } = await core.run(key, "test.sleep", { ms: 30_000 }, { timeout_ms: 1_400 });
    expect(record).toMatchObject({ status: "timed_out", error: { code: "execution_timeout" } });
    expect(record.error?.message).toMatch(
      /^The execution exceeded its timeout of 1400 ms\. It waited 1\d{3} ms of it for a worker thread before it started\.$/,
    );
    // Audit 23, changes #9: it started when it got its thread, and ran for what was left of
    // its timeout: latency_ms is the time spent running the skill (contract.md), not the wait.
    const startedAfterMs = Date.parse(record.started_at ?? "") - Date.parse(record.created_at);
    expect(startedAfterMs).toBeGreaterThanOrEqual(1_050);
    expect(record.latency_ms).toBeLessThan(1_000);
    expect(startedAfterMs + (record.latency_ms ?? 0)).toBeGreaterThanOrEqual(1_350);
    expect((await core.skillport.store.executions.get(record.id))?.record).toEqual(record);
  });

  // Session 25: its 503 said "The execution … ran and ended timed_out", though it never ran.
  it("is told, when the store cannot take its timeout, that it never started, not that it ran", async () => {
    const outage = new Database.SqliteError("disk I/O error", "SQLITE_IOERR");
    const down = { terminal: true };
    /** The store, except that it refuses terminal records while `down.terminal` (the outcome's save). */
    const refusingOutcomes = (store: Store): Store => {
      const { executions } = store;
      const save: ExecutionStore["save"] = async (execution) => {
        if (down.terminal && isTerminal(execution.record.status)) throw outage;
        return executions.save(execution);
      };
      return { ...store, executions: Object.assign(Object.create(executions) as ExecutionStore, { save }) };
    };
    const { core, key } = await coreWith(gatedThreads().executor, refusingOutcomes);
    const refused = await core.run(key, "test.echo", { text: "hi" }, { timeout_ms: 200 }).then(
      () => expect.unreachable("the outcome was stored with the store refusing it"),
      (err: unknown) => err as ServiceError,
    );
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503, retryAfterSeconds: 5 });
    const id = /^The execution (exec_\w+) /.exec(refused.message)?.[1];
    expect(refused.message).toBe(
      `The execution ${id} ended timed_out before it started (the skill never ran), but the store is unavailable and could not record it yet; ` +
        `it is recorded as soon as the store is back (GET /v1/executions/${id}), unless this process stops first (its record is then failed, execution_interrupted, or missing if the store took none of it).`,
    );
    expect(refused.message).not.toContain("ran and");

    // Recorded once the store takes it: timed out, with no start.
    down.terminal = false;
    await vi.waitFor(
      async () =>
        expect((await core.skillport.store.executions.get(id ?? ""))?.record).toMatchObject({
          status: "timed_out",
          started_at: null,
          latency_ms: null,
        }),
      { timeout: 5_000 },
    );
  });
});
