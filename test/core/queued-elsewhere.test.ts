import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { makeCore } from "./make-core.js";
import { echo, latch, latchReleases } from "./test-skills.js";

type Core = Awaited<ReturnType<typeof makeCore>>;

// Two cores on one SQLite file, as two processes: executions one holds waiting in memory
// and the other ends or takes over.
describe("executions waiting in one process, ended or taken over by another", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const release of latchReleases.values()) release();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * The second beats too rarely to look for orphans or waiting work during a test: both
   * run in this one process, and a runner judges another with its own pid an earlier
   * incarnation of itself, gone (runner-liveness.ts).
   */
  async function twoProcesses(): Promise<{ first: Core; second: Core }> {
    const dir = await mkdtemp(join(tmpdir(), "skillport-elsewhere-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const options = {
      store: "sqlite" as const,
      dir,
      clock: systemClock,
      asyncConcurrency: 1,
      maxConcurrentPerKey: 3,
    };
    const first = await makeCore([latch, echo], { ...options, heartbeatMs: 200 });
    const second = await makeCore([latch, echo], { ...options, heartbeatMs: 600_000 });
    cleanups.push(async () => {
      for (const core of [second, first]) {
        await core.skillport.stop(1000);
        await core.skillport.close();
      }
    });
    return { first, second };
  }

  it("lets go of the key's slots of those cancelled through the other process", async () => {
    const { first, second } = await twoProcesses();
    const key = await first.keyFor();
    const started = [];
    for (const label of ["run", "q1", "q2"]) {
      started.push((await first.run(key, "test.latch", { label }, { async: true })).record.id);
    }
    for (const id of started.slice(1)) {
      expect((await second.skillport.queries.cancel(key, id as string)).status).toBe("cancelled");
    }
    // The key holds one unfinished execution: two more are taken, as its cap of 3 allows.
    await vi.waitFor(() => expect(first.skillport.runner.load.queued).toBe(0), { timeout: 5_000 });
    for (const label of ["more1", "more2"]) {
      expect((await first.run(key, "test.latch", { label }, { async: true })).record.status).toBe("queued");
    }
  });

  it("cancels one the other process took over as the other's, keeping the record of its run", async () => {
    const { first, second } = await twoProcesses();
    const key = await first.keyFor();
    await first.run(key, "test.latch", { label: "hold" }, { async: true });
    const waiting = (await first.run(key, "test.latch", { label: "taken" }, { async: true })).record;
    // Another runner takes it over, as one with room takes those left waiting over a beat.
    const now = Date.now();
    const [taken] = await second.skillport.store.executions.takeQueued(
      "runner_other",
      1,
      new Date(now + 1000).toISOString(),
      (execution) => ({
        ...execution,
        record: { ...execution.record, status: "running", started_at: new Date(now).toISOString() },
      }),
    );
    expect(taken?.record).toMatchObject({ id: waiting.id, status: "running" });
    const running = taken?.record;
    const cancelled = await first.skillport.queries.cancel(key, waiting.id);
    expect(cancelled).toMatchObject({ status: "cancelled", started_at: running?.started_at });
    expect(cancelled.error?.message).not.toContain("before it started");
  });
});
