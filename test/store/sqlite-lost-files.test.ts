import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { makeExecution, makeKey } from "./contract/fixtures.js";
import { useTempStores } from "./support/temp-store.js";

// Audit 27, findings 2 and 3: SQLite writes to the files it opened whatever happens to
// their names. With `skillport.db-wal` deleted, every commit went to the unlinked WAL
// (answered stored, fsynced, and gone at the next start) while readiness stayed ready and
// nothing was logged; with `skillport.db` deleted or replaced, only a readiness probe
// noticed, and writes were still answered stored.

const RUNNER = { id: "runner_1", host: "test", pid: 1, heartbeatAt: 0 };

describe("sqlite: a store whose files are deleted or replaced under it", () => {
  const temp = useTempStores();

  async function openWithLog() {
    const dataDir = await temp.dataDir();
    const lines: Record<string, unknown>[] = [];
    const store = temp.open({ dataDir, logger: capturingLogger(lines) });
    const errors = () => lines.filter((line) => line.level === "error");
    return { dataDir, store, errors, file: join(dataDir, "skillport.db") };
  }

  it("writes back a deleted WAL into the database file, then refuses every write as an outage, not ready, with one error line", async () => {
    const { store, errors, file } = await openWithLog();
    const before = makeExecution();
    await store.executions.save(before);
    rmSync(`${file}-wal`);

    // The batch that meets the deleted WAL is written back into the database file with it.
    const during = makeExecution();
    await store.executions.save(during);
    // From then on nothing is taken: each write fails as an outage (a 503 with Retry-After).
    const refused = await store.executions.save(makeExecution()).then(
      () => expect.unreachable("a write into a deleted WAL was answered stored"),
      (err: unknown) => err,
    );
    expect(store.isOutage(refused)).toBe(true);
    // For good: no retry can be taken before the process restarts.
    expect(store.refusesUntilRestart(refused)).toBe(true);
    const limited = await store.limiter.acquire("key_1", [{ limit: 10, windowSeconds: 60 }], 1, 0).then(
      () => expect.unreachable("the limiter's write was taken"),
      (err: unknown) => err,
    );
    expect(store.isOutage(limited)).toBe(true);
    await expect(store.executions.heartbeat(RUNNER)).rejects.toSatisfy((err) => store.isOutage(err));
    expect(await store.ping()).toBe(false);
    expect(errors()).toEqual([
      expect.objectContaining({
        path: `${file}-wal`,
        written_back: true,
        msg: expect.stringMatching(/WAL file was deleted while open.*restart the process/),
      }),
    ]);

    // What it wrote is in the database file itself, as a process that dies now leaves it.
    const db = new Database(file, { readonly: true });
    try {
      const ids = db.prepare("select id from executions").pluck().all();
      expect(ids).toEqual(expect.arrayContaining([before.record.id, during.record.id]));
    } finally {
      db.close();
    }
  });

  it("refuses writes once its database file is deleted, at the first write, without a probe", async () => {
    const { store, errors, file } = await openWithLog();
    await store.keys.insert(makeKey());
    await store.executions.save(makeExecution());
    rmSync(file);
    const refused = await store.executions.save(makeExecution()).then(
      () => expect.unreachable("a write into a deleted database file was answered stored"),
      (err: unknown) => err,
    );
    expect(store.isOutage(refused)).toBe(true);
    expect(store.refusesUntilRestart(refused)).toBe(true);
    await expect(store.executions.save(makeExecution())).rejects.toSatisfy(
      (err) => store.isOutage(err) && store.refusesUntilRestart(err),
    );
    expect(errors()).toEqual([
      expect.objectContaining({
        path: file,
        msg: expect.stringMatching(/database file was deleted or replaced while open.*restart the process/),
      }),
    ]);
    expect(await store.ping()).toBe(false);
    expect(errors()).toHaveLength(1);
  });

  it("notices a replaced database file within seconds with no write and no probe", async () => {
    const { store, errors, file } = await openWithLog();
    const other = await temp.dataDir();
    await temp.open({ dataDir: other }).close();
    renameSync(join(other, "skillport.db"), file);
    await expect.poll(() => errors().length, { timeout: 8_000, interval: 200 }).toBe(1);
    expect(errors()[0]).toMatchObject({ path: file });
    await expect(store.executions.heartbeat(RUNNER)).rejects.toSatisfy((err) => store.isOutage(err));
  }, 15_000);
});
