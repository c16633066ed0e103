import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Logger, silentLogger } from "../../src/core/logger.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { GroupCommit } from "../../src/store/sqlite/group-commit.js";
import { SqliteLimiter } from "../../src/store/sqlite/limiter.js";
import { migrate } from "../../src/store/sqlite/migrations.js";
import { StoreHealth } from "../../src/store/sqlite/store-health.js";
import { makeKey } from "./contract/fixtures.js";
import { damageTable } from "./support/damage-table.js";
import { useTempStores } from "./support/temp-store.js";

// Audit 18, findings 1 and 2: `ping` (what `/readyz` reports as "store") was `select 1`,
// which answers from the open connection while writes fail or go to a file that is no
// longer at the path.

const RUNNER = { id: "runner_1", host: "test", pid: 1, heartbeatAt: 0 };

/** A database of its own whose page budget stands in for a full disk (SQLite answers SQLITE_FULL). */
function fullDatabase(path: string): { db: InstanceType<typeof Database>; freeSpace(): void } {
  const db = new Database(path);
  db.exec("create table t (k text primary key, v blob)");
  db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true })}`);
  return { db, freeSpace: () => db.pragma("max_page_count = 1000000") };
}

/** A logger that keeps its error lines. */
function errorLines(): { logger: Logger; errors: { obj: object; msg?: string }[] } {
  const errors: { obj: object; msg?: string }[] = [];
  const logger: Logger = {
    ...silentLogger,
    error: (obj, msg) => errors.push({ obj, msg }),
    child: () => logger,
  };
  return { logger, errors };
}

describe("sqlite: readiness (ping) tells whether the store can serve", () => {
  const temp = useTempStores();

  it("is not ready once its database file is deleted under it", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    expect(await store.ping()).toBe(true);
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(join(dataDir, `skillport.db${suffix}`), { force: true });
    expect(await store.ping()).toBe(false);
  });

  it("is not ready once another database file replaces its own", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    const otherDir = await temp.dataDir();
    await temp.open({ dataDir: otherDir }).close();
    expect(await store.ping()).toBe(true);
    renameSync(join(otherDir, "skillport.db"), join(dataDir, "skillport.db"));
    expect(await store.ping()).toBe(false);
  });

  it("is not ready while its writes fail with an outage, and ready again by itself once one lands", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    await store.executions.heartbeat(RUNNER);
    expect(await store.ping()).toBe(true);
    // Another process holds the write lock past the busy timeout: SQLITE_BUSY.
    const other = new Database(join(dataDir, "skillport.db"));
    other.exec("begin immediate");
    try {
      await expect(store.executions.heartbeat(RUNNER)).rejects.toMatchObject({ code: "SQLITE_BUSY" });
      expect(await store.ping()).toBe(false);
    } finally {
      other.exec("rollback");
      other.close();
    }
    // The next heartbeat (every few seconds, traffic or not) lands: ready again.
    await store.executions.heartbeat(RUNNER);
    expect(await store.ping()).toBe(true);
  }, 20_000);

  it("is not ready while a read of a damaged table fails, though other statements succeed, and logs the file once", async () => {
    // Audit 22, operations #4: every request was 503 (the keys table damaged) while
    // `/readyz` answered 200, as `select 1` and the writes of other tables succeeded.
    const dataDir = await temp.dataDir();
    const filePath = join(dataDir, "skillport.db");
    const key = makeKey();
    const first = temp.open({ dataDir });
    await first.keys.insert(key);
    await first.close();
    const damage = damageTable(filePath, "api_keys");
    const { logger, errors } = errorLines();
    const store = temp.open({ dataDir, logger });
    expect(await store.ping()).toBe(true);
    for (let i = 0; i < 3; i++) {
      await expect(store.keys.findByHash(key.hash)).rejects.toMatchObject({ code: "SQLITE_CORRUPT" });
    }
    // The heartbeat (every few seconds) and a read of another table land: still not ready.
    await store.executions.heartbeat(RUNNER);
    await store.executions.get("exec_none");
    expect(await store.ping()).toBe(false);
    expect(await store.ping()).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.obj).toMatchObject({ path: filePath, code: "SQLITE_CORRUPT" });
    expect(errors[0]?.msg).toContain("the database file is damaged");
    // Repaired: the probe runs the failed read again itself (no request reaches a replica
    // out of rotation) and finds it succeeds.
    damage.restore();
    expect(await store.ping()).toBe(true);
    expect(await store.keys.findByHash(key.hash)).toMatchObject({ id: key.id });
  });

  it("the group commit reports a batch that fails with SQLITE_FULL, then the next that lands", async () => {
    const { db, freeSpace } = fullDatabase(join(await temp.dataDir(), "group.db"));
    const health = new StoreHealth();
    const writer = new GroupCommit(db, silentLogger, async () => {}, health);
    const put = (k: string) => () => {
      db.prepare("insert into t (k, v) values (?, zeroblob(100000))").run(k);
    };
    await expect(writer.write("a", put("a"))).rejects.toMatchObject({ code: "SQLITE_FULL" });
    expect(health.ok).toBe(false);
    freeSpace();
    await writer.write("b", put("b"));
    expect(health.ok).toBe(true);
    await writer.close();
    db.close();
  });

  it("the group commit reports an fsync that fails with an I/O error", async () => {
    const db = new Database(join(await temp.dataDir(), "sync.db"));
    db.exec("create table t (k text primary key)");
    const health = new StoreHealth();
    let fail = true;
    const writer = new GroupCommit(
      db,
      silentLogger,
      async () => {
        if (fail) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
      },
      health,
    );
    const put = (k: string) => () => db.prepare("insert into t (k) values (?)").run(k);
    await expect(writer.write("a", put("a"))).rejects.toMatchObject({ code: "EIO" });
    expect(health.ok).toBe(false);
    fail = false;
    await writer.write("b", put("b"));
    expect(health.ok).toBe(true);
    await writer.close();
    db.close();
  });

  it("the limiter reports a grant that fails with SQLITE_FULL, and not a limit refusal", async () => {
    const db = new Database(join(await temp.dataDir(), "limits.db"));
    migrate(db);
    const health = new StoreHealth();
    const limiter = new SqliteLimiter(db, health);
    const windows = [{ limit: 1, windowSeconds: 60 }];
    expect((await limiter.consume("k", windows, 0)).allowed).toBe(true);
    expect((await limiter.consume("k", windows, 0)).allowed).toBe(false);
    expect(health.ok).toBe(true);
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true })}`);
    const manyBuckets = async () => {
      for (let i = 0; i < 10_000; i++) await limiter.consume(`bucket-${i}-${"x".repeat(200)}`, windows, 0);
    };
    await expect(manyBuckets()).rejects.toMatchObject({ code: "SQLITE_FULL" });
    expect(health.ok).toBe(false);
    db.pragma("max_page_count = 1000000");
    await limiter.consume("k2", windows, 0);
    expect(health.ok).toBe(true);
    db.close();
  });
});
