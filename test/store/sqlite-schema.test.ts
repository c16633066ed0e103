import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import { DEFAULT_DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { MIGRATIONS, migrate } from "../../src/store/sqlite/migrations.js";
import { BUSY_TIMEOUT_MS, openConnection } from "../../src/store/sqlite/open-database.js";
import { makeExecution, makeKey } from "./contract/fixtures.js";
import { useTempStores } from "./support/temp-store.js";

const LATEST = MIGRATIONS.length;

describe("sqlite: file, connections and migrations", () => {
  const temp = useTempStores();

  it("creates a missing data dir and the database file skillport.db in it", async () => {
    const dataDir = join(await temp.dataDir(), "nested", "data");
    const store = temp.open({ dataDir });
    expect(await store.ping()).toBe(true);
    expect(existsSync(join(dataDir, DEFAULT_DATABASE_FILE))).toBe(true);
    temp.open({ dataDir, fileName: "other.db" });
    expect(existsSync(join(dataDir, "other.db"))).toBe(true);
  });

  it("configures each connection: WAL, busy timeout, foreign keys, and its own synchronous level", async () => {
    const file = join(await temp.dataDir(), "settings.db");
    for (const [synchronous, level] of [
      ["FULL", 2],
      ["NORMAL", 1],
    ] as const) {
      const db = openConnection(file, { synchronous });
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("busy_timeout", { simple: true })).toBe(BUSY_TIMEOUT_MS);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(db.pragma("synchronous", { simple: true })).toBe(level);
      db.close();
    }
  });

  it("migrates once: reopening applies nothing and keeps the data", async () => {
    const dataDir = await temp.dataDir();
    const first = temp.open({ dataDir });
    const key = makeKey();
    await first.keys.insert(key);
    await first.close();
    const second = temp.open({ dataDir });
    expect(await second.keys.findById(key.id)).toEqual(key);
    await second.close();

    const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE));
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST);
    expect(migrate(db)).toBe(LATEST);
    expect(db.pragma("user_version", { simple: true })).toBe(LATEST);
    db.close();
  });

  it("refuses a database whose schema is newer than this code", async () => {
    const dataDir = await temp.dataDir();
    await temp.open({ dataDir }).close();
    const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE));
    db.pragma(`user_version = ${LATEST + 1}`);
    db.close();
    expect(() => temp.open({ dataDir })).toThrow(/newer than this skillport knows/);
  });

  it("rolls a failed migration back entirely, version included", async () => {
    const db = new Database(join(await temp.dataDir(), "failing.db"));
    const steps = [
      { version: 1, name: "good", sql: "create table a (x integer) strict;" },
      { version: 2, name: "bad", sql: "create table b (x integer) strict; select * from missing_table;" },
    ];
    expect(() => migrate(db, steps)).toThrow(/missing_table/);
    expect(db.pragma("user_version", { simple: true })).toBe(0);
    expect(db.prepare("select count(*) as n from sqlite_schema where type = 'table'").get()).toEqual({
      n: 0,
    });
    expect(() => migrate(db, [{ version: 2, name: "gap", sql: "" }])).toThrow(/out of sequence/);
    db.close();
  });

  it("passes PRAGMA integrity_check after writes, close and reopen", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    await store.keys.insert(makeKey());
    await Promise.all(Array.from({ length: 100 }, () => store.executions.save(makeExecution())));
    await store.limiter.consume("bucket", [{ limit: 5, windowSeconds: 60 }], Date.now());
    await store.memory.set("acme", "k", { v: 1 }, new Date().toISOString());
    await store.close();
    const reopened = temp.open({ dataDir });
    expect(await reopened.ping()).toBe(true);
    await reopened.close();
    const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE), { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(db.pragma("foreign_key_check")).toEqual([]);
    db.close();
  });
});
