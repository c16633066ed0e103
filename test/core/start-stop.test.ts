import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { silentLogger } from "../../src/core/logger.js";
import { Skillport } from "../../src/core/skillport.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { DEFAULT_DATABASE_FILE, openSqliteStore } from "../../src/store/sqlite/index.js";
import { executionStatuses } from "../support/execution-statuses.js";
import { makeCore } from "./make-core.js";
import { sleep } from "./test-skills.js";

/**
 * A data directory where a stopped process left `count` runs of a minute: one of them
 * interrupted, the rest queued; removed by `remove`.
 */
async function leftQueued(count: number) {
  // On SQLite: a second core opens the file, and the statuses are read from it.
  const first = await makeCore([sleep], { store: "sqlite", asyncConcurrency: 1, clock: systemClock });
  const remove = () => rm(first.dir, { recursive: true, force: true });
  try {
    const key = await first.keyFor();
    for (let i = 0; i < count; i++) await first.run(key, "test.sleep", { ms: 60_000 }, { async: true });
    await first.skillport.stop(0);
    await first.skillport.close();
  } catch (err) {
    await remove();
    throw err;
  }
  return { dir: first.dir, remove };
}

/** The core of the next process on `dir`, not started. */
function nextCore(dir: string): Skillport {
  return new Skillport({
    store: openSqliteStore({ dataDir: dir, clock: systemClock }),
    skills: [sleep],
    logger: silentLogger,
    clock: systemClock,
    failedAuthPerMinute: 30,
    asyncConcurrency: 1,
  });
}

describe("a stop that arrives during the start", () => {
  // A signal right after launch (a rolling deploy, Ctrl-C) calls stop while start takes
  // over the executions a stopped process left queued.
  it("waits for the start: the run it took ends interrupted, as any running one; the rest stay queued", async () => {
    const { dir, remove } = await leftQueued(3);
    try {
      const statuses = () => executionStatuses(dir);
      // One ran and was interrupted; two never left the queue.
      expect(statuses()).toEqual(["failed", "queued", "queued"]);

      const second = nextCore(dir);
      const starting = second.start();
      await second.stop(0);
      await starting;
      await second.close();
      // One queued run was taken and interrupted by the stop (it runs for a minute); the
      // other is still queued. Stopping amid the start failed both, untouched as they were.
      expect(statuses()).toEqual(["failed", "failed", "queued"]);
    } finally {
      await remove();
    }
  });
});

describe("a stop that arrives before the start", () => {
  // A signal while the process opened its store: the stop runs before the start is asked.
  it("leaves the core unstarted: no runner of it registered in the store, the queued executions left queued", async () => {
    const { dir, remove } = await leftQueued(2);
    try {
      expect(executionStatuses(dir)).toEqual(["failed", "queued"]);
      const second = nextCore(dir);
      await second.stop(0);
      await second.start();
      await second.close();
      // Started after its stop, it registered as a runner that nothing retired, beating
      // (on a closed store) until the process exited.
      expect(registeredRunners(dir)).toBe(0);
      expect(executionStatuses(dir)).toEqual(["failed", "queued"]);
    } finally {
      await remove();
    }
  });
});

function registeredRunners(dataDir: string): number {
  const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE), { readonly: true });
  try {
    return db.prepare("select count(*) from runners").pluck().get() as number;
  } finally {
    db.close();
  }
}

describe("an interrupt during a stop (a second signal)", () => {
  it("ends the running executions execution_interrupted at once instead of at the stop's deadline", async () => {
    // On SQLite: what the file holds once the core closed is what the test reads.
    const core = await makeCore([sleep], { store: "sqlite", clock: systemClock });
    try {
      const key = await core.keyFor();
      const run = core.run(key, "test.sleep", { ms: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stopped = core.skillport.stop(60_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const asked = Date.now();
      expect(core.skillport.interrupt()).toBe(1);
      await stopped;
      expect(Date.now() - asked).toBeLessThan(5_000);
      expect(await run).toMatchObject({
        record: { status: "failed", error: { code: "execution_interrupted" } },
      });
      await core.skillport.close();
      expect(executionStatuses(core.dir)).toEqual(["failed"]);
    } finally {
      await rm(core.dir, { recursive: true, force: true });
    }
  });
});
