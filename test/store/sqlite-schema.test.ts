import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import { newId } from "../../src/core/ids.js";
import { type BetterSqlite3, Database } from "../../src/store/sqlite/driver.js";
import { DEFAULT_DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { MIGRATIONS, migrate } from "../../src/store/sqlite/migrations.js";
import { BUSY_TIMEOUT_MS, openConnection } from "../../src/store/sqlite/open-database.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { makeExecution, makeKey, T0 } from "./contract/fixtures.js";
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
    expect(migrate(db)).toEqual({ version: LATEST, applied: [] });
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

  // Audit 26 (operations #6): no line said whether migrations ran, nor the schema version.
  it("says at open which migrations it applied and the schema version, in one info line", async () => {
    const dataDir = await temp.dataDir();
    const lines: Record<string, unknown>[] = [];
    const db = openConnection(join(dataDir, DEFAULT_DATABASE_FILE), { synchronous: "NORMAL" });
    migrate(db, MIGRATIONS.slice(0, LATEST - 1));
    db.close();
    await temp.open({ dataDir, logger: capturingLogger(lines) }).close();
    await temp.open({ dataDir, logger: capturingLogger(lines) }).close();
    const last = MIGRATIONS[LATEST - 1];
    expect(lines).toEqual([
      {
        level: "info",
        store: "sqlite",
        schema_version: LATEST,
        migrations_applied: [`${last?.version} ${last?.name}`],
        msg: "applied 1 schema migration",
      },
      {
        level: "info",
        store: "sqlite",
        schema_version: LATEST,
        migrations_applied: [],
        msg: "the store's schema is up to date",
      },
    ]);
  });

  it("moves a version-5 database's executions to id order, keeping every record", async () => {
    const file = join(await temp.dataDir(), "v5.db");
    const db = openConnection(file, { synchronous: "NORMAL" });
    migrate(db, MIGRATIONS.slice(0, 5));
    const insert = db.prepare(
      `insert into executions (id, owner, key_id, skill_id, status, success, params, async, timeout_ms,
         runner_id, created_at, finished_at)
       values (?, 'acme', 'key_1', 'math.evaluate', 'completed', 1, '{}', 0, 1000, 'runner_a', ?, ?)`,
    );
    for (let i = 0; i < 5; i++) {
      const at = isoTimestamp(T0 + i * 1000);
      insert.run(newId("exec", T0 + i * 1000), at, at);
    }
    expect(executionIndexes(db)).toEqual([
      "executions_created",
      "executions_finished",
      "executions_owner_created",
      "executions_unfinished",
    ]);
    migrate(db);
    expect(executionIndexes(db)).toEqual(["executions_owner", "executions_unfinished"]);
    expect(db.prepare("select count(*) as n from executions").get()).toEqual({ n: 5 });
    db.close();
  });

  // A vector in a WITHOUT ROWID table (versions 3 to 9) spilled to overflow pages, and an
  // owner's thousands of learned queries took ~70 ms of the event loop to read.
  it("keeps each cached vector in one page, and moves a version-9 cache there keeping every vector", async () => {
    const vectors = Array.from({ length: 40 }, (_, i) => ({
      textHash: `hash-${i}`,
      vector: Float32Array.from({ length: 512 }, (_, j) => Math.sin(i * 512 + j)),
    }));
    const file = join(await temp.dataDir(), "v9.db");
    const db = openConnection(file, { synchronous: "NORMAL" });
    migrate(db, MIGRATIONS.slice(0, 9));
    const insert = db.prepare("insert into embeddings (model, text_hash, vector) values ('m', ?, ?)");
    for (const { textHash, vector } of vectors) insert.run(textHash, Buffer.from(vector.buffer));
    migrate(db);
    expect(overflowPages(db, "embeddings")).toBe(0);
    db.close();

    const store = temp.open({ dataDir: dirname(file), fileName: "v9.db" });
    const found = await store.embeddings.getMany(
      "m",
      vectors.map((v) => v.textHash),
    );
    expect(found).toHaveLength(vectors.length);
    for (const { textHash, vector } of found) {
      expect(vector).toEqual(vectors.find((v) => v.textHash === textHash)?.vector);
    }
    // Storing a vector again replaces it, through the unique index.
    await store.embeddings.putMany("m", [{ textHash: "hash-0", vector: vectors[1]?.vector as Float32Array }]);
    expect((await store.embeddings.getMany("m", ["hash-0"]))[0]?.vector).toEqual(vectors[1]?.vector);
    await store.close();
  });

  it("reads unfinished executions (the shared queue, orphans) through their partial index, never by a scan", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    // The statements themselves: a copy of their SQL here would not show a change to them.
    const statements = store.executions as unknown as Record<
      "queuedCandidates" | "orphanCandidates",
      BetterSqlite3.Statement
    >;
    const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE), { readonly: true });
    try {
      for (const name of ["queuedCandidates", "orphanCandidates"] as const) {
        const sql = statements[name].source;
        const params = Array.from(sql.match(/\?/g) ?? [], () => "x");
        const detail = (db.prepare(`explain query plan ${sql}`).all(...params) as { detail: string }[])
          .map((row) => row.detail)
          .join("; ");
        expect(detail, name).toMatch(/USING INDEX executions_unfinished/);
        expect(detail, name).not.toMatch(/SCAN executions(?! USING)/);
      }
    } finally {
      db.close();
      await store.close();
    }
  });

  it("lists executions and finds old ones by the primary key or the owner's index, never by a sort", async () => {
    const dataDir = await temp.dataDir();
    await temp.open({ dataDir }).close();
    const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE), { readonly: true });
    const plan = (sql: string) =>
      (db.prepare(`explain query plan ${sql}`).all() as { detail: string }[])
        .map((row) => row.detail)
        .join("; ");
    // The statements SqliteExecutionStore prepares for these cases.
    const everyOwner = plan("select * from executions where 1 = 1 and id < 'x' order by id desc limit 10");
    const oneOwner = plan(
      "select * from executions where 1 = 1 and owner = 'acme' and id < 'x' order by id desc limit 10",
    );
    // The sizes that bound a page in bytes, and the page read from its first record on.
    const sizes = plan(
      "select id, coalesce(length(cast(result as blob)), 0) as resultBytes from executions where 1 = 1 and owner = 'acme' and id < 'x' order by id desc limit 10",
    );
    const fromFirst = plan("select * from executions where 1 = 1 and id <= 'x' order by id desc limit 10");
    const old = plan(
      "select rowid from executions where id < 'x' and finished_at < 'y' and status not in ('queued', 'running') limit 10",
    );
    expect(everyOwner).toMatch(/USING INDEX sqlite_autoindex_executions_1 \(id<\?\)/);
    expect(oneOwner).toMatch(/USING (COVERING )?INDEX executions_owner \(owner=\? AND id<\?\)/);
    expect(sizes).toMatch(/USING INDEX executions_owner \(owner=\? AND id<\?\)/);
    expect(fromFirst).toMatch(/USING INDEX sqlite_autoindex_executions_1 \(id<\?\)/);
    expect(old).toMatch(/USING INDEX sqlite_autoindex_executions_1 \(id<\?\)/);
    for (const detail of [everyOwner, oneOwner, sizes, fromFirst, old])
      expect(detail).not.toMatch(/TEMP B-TREE|SCAN/);
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

/** Overflow pages of a table: a row larger than what its page holds continues in them. */
function overflowPages(db: BetterSqlite3.Database, table: string): number {
  const row = db
    .prepare("select count(*) as n from dbstat where name = ? and pagetype = 'overflow'")
    .get(table) as { n: number };
  return row.n;
}

function executionIndexes(db: BetterSqlite3.Database): string[] {
  const rows = db
    .prepare(
      "select name from sqlite_schema where type = 'index' and tbl_name = 'executions' and sql is not null",
    )
    .all() as { name: string }[];
  return rows.map((row) => row.name).sort();
}
