import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { RunnerInfo } from "../../../src/core/ports.js";
import { makeExecution, type StoreHandle, T0 } from "./fixtures.js";

const STALE_MS = 30_000;
/** The rule a runner would use: no row, or no heartbeat for STALE_MS. */
const goneAt =
  (nowMs: number) =>
  (runner: RunnerInfo | undefined): boolean =>
    runner === undefined || nowMs - runner.heartbeatAt > STALE_MS;

/** Runners, orphan claiming and retention. */
export function describeRunnerContract(handle: StoreHandle): void {
  describe("runners and orphans", () => {
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
      expect(claimed.find((e) => e.record.id === records.dead.record.id)).toEqual({
        ...records.dead,
        runnerId: "runner_me",
      });
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

    it("deletes only terminal records finished before the cutoff, and says how many", async () => {
      const { executions } = handle.store;
      const old = makeExecution({ status: "completed", finishedAt: isoTimestamp(T0 - 2000) });
      const oldFailed = makeExecution({ status: "failed", finishedAt: isoTimestamp(T0 - 1000) });
      const recent = makeExecution({ status: "completed", finishedAt: isoTimestamp(T0) });
      const running = makeExecution({ status: "running", createdAt: isoTimestamp(T0 - 5000) });
      await Promise.all([old, oldFailed, recent, running].map((record) => executions.save(record)));
      expect(await executions.deleteFinishedBefore(isoTimestamp(T0))).toBe(2);
      expect(await executions.get(old.record.id)).toBeUndefined();
      expect(await executions.get(oldFailed.record.id)).toBeUndefined();
      expect(await executions.get(recent.record.id)).toEqual(recent);
      expect(await executions.get(running.record.id)).toEqual(running);
      expect(await executions.deleteFinishedBefore(isoTimestamp(T0))).toBe(0);
    });
  });
}
