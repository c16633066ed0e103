import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { StoredExecution } from "../../../src/core/execution/record.js";
import type { RunnerInfo } from "../../../src/core/ports.js";
import { makeExecution, type StoreHandle, T0 } from "./fixtures.js";

const STALE_MS = 30_000;
/** The rule a runner would use: no row, or no heartbeat for STALE_MS. */
const goneAt =
  (nowMs: number) =>
  (runner: RunnerInfo | undefined): boolean =>
    runner === undefined || nowMs - runner.heartbeatAt > STALE_MS;

/** The params a runner stores for a running record: here, with its expression masked. */
const masked = (execution: StoredExecution) => ({ ...execution.params, expression: "[redacted]" });
/** A taken execution as a runner starts it (`markRunning`): running since `startedAt`, its params as queued. */
const startingAt =
  (startedAt: string) =>
  (taken: StoredExecution): StoredExecution => ({
    ...taken,
    record: { ...taken.record, status: "running", started_at: startedAt },
  });

/** Runners, orphan claiming and retention. */
export function describeRunnerContract(handle: StoreHandle): void {
  describe("runners and orphans", () => {
    // Audit 26, finding 1: what heartbeats are written and judged by across hosts.
    it("has a shared clock that reads the time (within a few seconds), or none when its processes share one machine", async () => {
      const first = await handle.store.executions.sharedClockMs();
      const second = await handle.store.executions.sharedClockMs();
      if (first === undefined) {
        expect(second).toBeUndefined();
        return;
      }
      expect(Math.abs(first - Date.now())).toBeLessThan(5_000);
      expect(second).toBeGreaterThanOrEqual(first);
    });

    const seed = async () => {
      const { executions } = handle.store;
      await executions.heartbeat({ id: "runner_live", host: "h1", pid: 11, heartbeatAt: T0 - 1000 });
      await executions.heartbeat({ id: "runner_dead", host: "h2", pid: 22, heartbeatAt: T0 - 60_000 });
      await executions.heartbeat({ id: "runner_me", host: "h3", pid: 33, heartbeatAt: T0 });
      const records = {
        live: makeExecution({ status: "running", runnerId: "runner_live" }),
        dead: makeExecution({ status: "running", runnerId: "runner_dead" }),
        deadQueued: makeExecution({ status: "queued", runnerId: "runner_dead" }),
        missing: makeExecution({ status: "queued", runnerId: "runner_missing" }),
        deadFinished: makeExecution({ status: "completed", runnerId: "runner_dead" }),
        mine: makeExecution({ status: "running", runnerId: "runner_me" }),
      };
      await Promise.all(Object.values(records).map((record) => executions.save(record)));
      return records;
    };

    it("claims the non-terminal executions of gone or missing runners, and only those", async () => {
      const records = await seed();
      const claimed = await handle.store.executions.claimOrphans("runner_me", goneAt(T0));
      const claimedIds = claimed.map((execution) => execution.record.id).sort();
      expect(claimedIds).toEqual(
        [records.dead.record.id, records.deadQueued.record.id, records.missing.record.id].sort(),
      );
      for (const execution of claimed) expect(execution.runnerId).toBe("runner_me");
      // Each with when its gone runner last beat (none for a runner that left no row).
      expect(claimed.find((e) => e.record.id === records.dead.record.id)).toEqual({
        ...records.dead,
        runnerId: "runner_me",
        lastHeartbeatAt: T0 - 60_000,
      });
      expect(claimed.find((e) => e.record.id === records.missing.record.id)?.lastHeartbeatAt).toBeUndefined();
      expect((await handle.store.executions.get(records.missing.record.id))?.runnerId).toBe("runner_me");
      expect((await handle.store.executions.get(records.live.record.id))?.runnerId).toBe("runner_live");
      expect((await handle.store.executions.get(records.deadFinished.record.id))?.runnerId).toBe(
        "runner_dead",
      );
    });

    it("claims each orphan once: a second claim finds nothing", async () => {
      await seed();
      expect(await handle.store.executions.claimOrphans("runner_me", goneAt(T0))).toHaveLength(3);
      expect(await handle.store.executions.claimOrphans("runner_other", goneAt(T0))).toEqual([]);
    });

    it("passes the runner's last heartbeat, or undefined for a runner without a row", async () => {
      await seed();
      await handle.store.executions.heartbeat({ id: "runner_live", host: "h1b", pid: 12, heartbeatAt: T0 });
      const seen = new Map<string, RunnerInfo | undefined>();
      await handle.store.executions.claimOrphans("runner_me", (runner) => {
        seen.set(runner?.id ?? "none", runner);
        return false;
      });
      expect(seen.get("runner_live")).toEqual({ id: "runner_live", host: "h1b", pid: 12, heartbeatAt: T0 });
      expect(seen.get("runner_dead")).toEqual({
        id: "runner_dead",
        host: "h2",
        pid: 22,
        heartbeatAt: T0 - 60_000,
      });
      expect(seen.has("none")).toBe(true);
    });

    it("treats a retired runner as having no row", async () => {
      const records = await seed();
      await handle.store.executions.retireRunner("runner_live");
      const claimed = await handle.store.executions.claimOrphans(
        "runner_me",
        (runner) => runner === undefined,
      );
      const claimedIds = claimed.map((execution) => execution.record.id);
      expect(claimedIds).toContain(records.live.record.id);
      expect(claimedIds).toContain(records.missing.record.id);
      expect(claimedIds).not.toContain(records.dead.record.id);
    });

    // Audit 26 (operations): the rows of crashed runners stayed for ever.
    it("prunes the rows of runners silent since before the cutoff that hold nothing unfinished, and only those", async () => {
      const { executions } = handle.store;
      const cutoff = T0 - 3_600_000;
      const beat = (id: string, heartbeatAt: number) =>
        executions.heartbeat({ id, host: "h", pid: 1, heartbeatAt });
      await beat("runner_idle", cutoff - 1);
      await beat("runner_finished", cutoff - 60_000);
      await beat("runner_running", cutoff - 60_000);
      await beat("runner_queued", cutoff - 60_000);
      await beat("runner_at_cutoff", cutoff);
      await beat("runner_recent", T0);
      const records = {
        finished: makeExecution({ status: "failed", runnerId: "runner_finished" }),
        running: makeExecution({ status: "running", runnerId: "runner_running" }),
        queued: makeExecution({ status: "queued", runnerId: "runner_queued" }),
        atCutoff: makeExecution({ status: "running", runnerId: "runner_at_cutoff" }),
        recent: makeExecution({ status: "running", runnerId: "runner_recent" }),
      };
      await Promise.all(Object.values(records).map((record) => executions.save(record)));

      expect(await executions.pruneRunners(cutoff)).toBe(2);
      expect(await executions.pruneRunners(cutoff)).toBe(0);
      // The rows of runners holding unfinished executions are still there, as they were.
      const seen = new Map<string, RunnerInfo | undefined>();
      await executions.claimOrphans("runner_me", (runner) => {
        if (runner) seen.set(runner.id, runner);
        return false;
      });
      expect([...seen.keys()].sort()).toEqual([
        "runner_at_cutoff",
        "runner_queued",
        "runner_recent",
        "runner_running",
      ]);
      // A pruned runner that beats again has its row back.
      await beat("runner_idle", T0);
      await executions.save(makeExecution({ status: "running", runnerId: "runner_idle" }));
      await executions.claimOrphans("runner_me", (runner) => {
        if (runner) seen.set(runner.id, runner);
        return false;
      });
      expect(seen.get("runner_idle")?.heartbeatAt).toBe(T0);
      // Once its executions have ended, an old runner's row goes too.
      await executions.save(
        makeExecution({ status: "completed", id: records.running.record.id, runnerId: "runner_running" }),
      );
      expect(await executions.pruneRunners(cutoff)).toBe(1);
    });

    it("takes and starts queued executions of other runners, oldest first, created before the cutoff", async () => {
      const { executions } = handle.store;
      const queued = (offsetMs: number, runnerId: string) =>
        makeExecution({ status: "queued", runnerId, createdAt: isoTimestamp(T0 + offsetMs) });
      const oldest = queued(0, "runner_busy");
      const middle = queued(1000, "runner_dead");
      const newest = queued(2000, "runner_busy");
      const tooRecent = queued(10_000, "runner_busy");
      const mine = queued(-5000, "runner_me");
      const running = makeExecution({ status: "running", runnerId: "runner_busy" });
      const finished = makeExecution({ status: "completed", runnerId: "runner_busy" });
      const all = [oldest, middle, newest, tooRecent, mine, running, finished];
      await Promise.all(all.map((record) => executions.save(record)));
      const cutoff = isoTimestamp(T0 + 5000);
      const startedAt = isoTimestamp(T0 + 6000);
      const started = (execution: typeof oldest, runnerId: string) => ({
        ...execution,
        runnerId,
        record: { ...execution.record, status: "running", started_at: startedAt },
      });
      const first = await executions.takeQueued("runner_me", 2, cutoff, startingAt(startedAt));
      expect(first).toEqual([started(oldest, "runner_me"), started(middle, "runner_me")]);
      expect(await executions.get(oldest.record.id)).toEqual(started(oldest, "runner_me"));
      const rest = await executions.takeQueued("runner_other", 10, cutoff, startingAt(startedAt));
      expect(rest.map((e) => e.record.id)).toEqual([mine.record.id, newest.record.id]);
      expect(await executions.takeQueued("runner_third", 10, cutoff, startingAt(startedAt))).toEqual([]);
      expect(await executions.get(tooRecent.record.id)).toEqual(tooRecent);
      const later = isoTimestamp(T0 + 60_000);
      expect(await executions.takeQueued("runner_me", 0, later, startingAt(startedAt))).toEqual([]);
    });

    // Session 24: a taken record was stored running with the params it was queued with,
    // credentials included, until it ended.
    it("stores a taken execution's params as the taker masks them, and gives the taker them whole", async () => {
      const { executions } = handle.store;
      const queued = makeExecution({
        status: "queued",
        runnerId: "runner_busy",
        createdAt: isoTimestamp(T0),
      });
      await executions.save(queued);
      const startedAt = isoTimestamp(T0 + 6000);
      const whole = {
        ...queued,
        runnerId: "runner_me",
        record: { ...queued.record, status: "running" as const, started_at: startedAt },
      };
      const seen: unknown[] = [];
      const [taken] = await executions.takeQueued("runner_me", 1, isoTimestamp(T0 + 5000), (execution) => {
        seen.push(execution);
        return { ...startingAt(startedAt)(execution), params: masked(execution) };
      });
      expect(taken).toEqual(whole);
      expect(seen).toEqual([{ ...queued, runnerId: "runner_me" }]);
      expect(await executions.get(queued.record.id)).toEqual({ ...whole, params: masked(whole) });
    });

    it("gives each queued execution to exactly one of several runners taking at once", async () => {
      const { executions } = handle.store;
      const backlog = Array.from({ length: 30 }, (_, i) =>
        makeExecution({ status: "queued", runnerId: "runner_busy", createdAt: isoTimestamp(T0 + i) }),
      );
      await Promise.all(backlog.map((record) => executions.save(record)));
      const takes = await Promise.all(
        ["runner_1", "runner_2", "runner_3"].map((runner) =>
          executions.takeQueued(runner, 15, isoTimestamp(T0 + 60_000), startingAt(isoTimestamp(T0 + 60_000))),
        ),
      );
      const taken = takes.flat().map((e) => e.record.id);
      expect(taken).toHaveLength(30);
      expect(new Set(taken).size).toBe(30);
    });

    it("starts a queued execution only for the runner holding it, and only once, storing its params masked", async () => {
      const { executions } = handle.store;
      const queued = makeExecution({ status: "queued", runnerId: "runner_a" });
      await executions.save(queued);
      const startedAt = isoTimestamp(T0 + 250);
      const running = (runnerId: string) => ({
        ...queued,
        runnerId,
        params: masked(queued),
        record: { ...queued.record, status: "running" as const, started_at: startedAt },
      });
      expect(await executions.start(running("runner_b"))).toBe(false);
      expect(await executions.get(queued.record.id)).toEqual(queued);
      expect(await executions.start(running("runner_a"))).toBe(true);
      expect(await executions.get(queued.record.id)).toEqual(running("runner_a"));
      expect(await executions.start(running("runner_a"))).toBe(false);
    });

    // Session 24: `start` and `takeQueued` wrote only the columns they named in SQL, so a
    // field the core changes at start would have been silently dropped.
    it("stores a started execution as the runner built it, every field", async () => {
      const { executions } = handle.store;
      const queued = makeExecution({ status: "queued", runnerId: "runner_a", createdAt: isoTimestamp(T0) });
      const other = makeExecution({ status: "queued", runnerId: "runner_busy", createdAt: isoTimestamp(T0) });
      await Promise.all([executions.save(queued), executions.save(other)]);
      // Running, and two fields `start` never wrote: one of the record, one of the execution.
      const built = (execution: StoredExecution): StoredExecution => {
        const running = startingAt(isoTimestamp(T0 + 250))(execution);
        return {
          ...running,
          timeoutMs: execution.timeoutMs + 1000,
          record: { ...running.record, latency_ms: 0 },
        };
      };
      expect(await executions.start(built(queued))).toBe(true);
      expect(await executions.get(queued.record.id)).toEqual(built(queued));
      const [taken] = await executions.takeQueued("runner_me", 1, isoTimestamp(T0 + 5000), built);
      expect(taken).toEqual(built({ ...other, runnerId: "runner_me" }));
      expect(await executions.get(other.record.id)).toEqual(built({ ...other, runnerId: "runner_me" }));
    });

    it("does not start an execution cancelled while it was queued", async () => {
      const { executions } = handle.store;
      const queued = makeExecution({ status: "queued", runnerId: "runner_a" });
      await executions.save(queued);
      const cancelled = makeExecution({ id: queued.record.id, status: "cancelled", runnerId: "runner_a" });
      await executions.save(cancelled);
      const running = { ...queued, record: { ...queued.record, status: "running" as const } };
      expect(await executions.start(running)).toBe(false);
      expect(await executions.get(queued.record.id)).toEqual(cancelled);
    });

    it("deletes only terminal records finished before the cutoff, and says how many", async () => {
      const { executions } = handle.store;
      const created = (ms: number) => ({ createdAt: isoTimestamp(ms) });
      const old = makeExecution({
        status: "completed",
        ...created(T0 - 9000),
        finishedAt: isoTimestamp(T0 - 2000),
      });
      const oldFailed = makeExecution({
        status: "failed",
        ...created(T0 - 1001),
        finishedAt: isoTimestamp(T0 - 1),
      });
      // Created before the cutoff like the two above, but finished at it: kept.
      const recent = makeExecution({
        status: "completed",
        ...created(T0 - 9000),
        finishedAt: isoTimestamp(T0),
      });
      const running = makeExecution({ status: "running", ...created(T0 - 5000) });
      const later = makeExecution({ status: "completed", ...created(T0 + 1000) });
      await Promise.all([old, oldFailed, recent, running, later].map((record) => executions.save(record)));
      expect(await executions.deleteFinishedBefore(isoTimestamp(T0))).toBe(2);
      expect(await executions.get(old.record.id)).toBeUndefined();
      expect(await executions.get(oldFailed.record.id)).toBeUndefined();
      expect(await executions.get(recent.record.id)).toEqual(recent);
      expect(await executions.get(running.record.id)).toEqual(running);
      expect(await executions.get(later.record.id)).toEqual(later);
      expect(await executions.deleteFinishedBefore(isoTimestamp(T0))).toBe(0);
      expect(await executions.deleteFinishedBefore(isoTimestamp(T0 + 1))).toBe(1);
      expect(await executions.get(recent.record.id)).toBeUndefined();
    });
  });
}
