import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import { makeKey } from "./contract/fixtures.js";
import { useTempStores } from "./support/temp-store.js";

/** What `run` threw; fails the test when it threw nothing. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error("expected an error");
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: unknown) => err,
  );
}

describe("sqlite: which errors are outages (Store.isOutage)", () => {
  const temp = useTempStores();

  it("takes a write to a read-only database for an outage", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    const readOnly = new Database(join(dataDir, "skillport.db"), { readonly: true });
    const err = thrownBy(() => readOnly.prepare("delete from api_keys").run());
    readOnly.close();
    expect(err).toMatchObject({ code: "SQLITE_READONLY" });
    expect(store.isOutage(err)).toBe(true);
    // A file made writable again is written at once: retries go on (the store's files are its own).
    expect(store.refusesUntilRestart(err)).toBe(false);
  });

  it("takes a file that is not a database for an outage", async () => {
    const dataDir = await temp.dataDir();
    writeFileSync(join(dataDir, "garbage.db"), "not a database ".repeat(300));
    const store = temp.open({ dataDir });
    // The driver's own error: opening a store wraps it, naming the file (see open-failure.ts).
    const garbage = new Database(join(dataDir, "garbage.db"));
    const err = thrownBy(() => garbage.pragma("user_version"));
    garbage.close();
    expect(err).toMatchObject({ code: "SQLITE_NOTADB" });
    expect(store.isOutage(err)).toBe(true);
  });

  it("takes a full database for an outage", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    // A page budget stands in for a full disk: SQLite answers both with SQLITE_FULL.
    const db = new Database(join(dataDir, "full.db"));
    db.exec("create table t (v blob)");
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true })}`);
    const err = thrownBy(() => db.prepare("insert into t values (zeroblob(100000))").run());
    db.close();
    expect(err).toMatchObject({ code: "SQLITE_FULL" });
    expect(store.isOutage(err)).toBe(true);
    // Space freed, the next write lands.
    expect(store.refusesUntilRestart(err)).toBe(false);
  });

  it("takes a failing disk seen by the fsync of the WAL for an outage", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    const eio = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    expect(store.isOutage(eio)).toBe(true);
  });

  it("does not take a refused statement, a constraint or a bug for an outage", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    const key = makeKey();
    await store.keys.insert(key);
    const duplicate = await rejectionOf(store.keys.insert(key));
    expect(duplicate).toMatchObject({ code: expect.stringMatching(/^SQLITE_CONSTRAINT/) });
    expect(store.isOutage(duplicate)).toBe(false);
    const db = new Database(":memory:");
    const syntax = thrownBy(() => db.prepare("selec 1"));
    db.close();
    expect(syntax).toMatchObject({ code: "SQLITE_ERROR" });
    expect(store.isOutage(syntax)).toBe(false);
    expect(store.isOutage(new TypeError("undefined is not a function"))).toBe(false);
    expect(store.isOutage(Object.assign(new Error("no such file"), { code: "ENOENT" }))).toBe(false);
    expect(store.isOutage("SQLITE_FULL")).toBe(false);
    expect(store.isOutage(undefined)).toBe(false);
  });
});
