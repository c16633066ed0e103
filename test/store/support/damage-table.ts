import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { Database } from "../../../src/store/sqlite/driver.js";

/**
 * Overwrites the header of `table`'s root page in the database file with 0xff bytes (as a
 * bad sector or a stray write would), after checkpointing the WAL into the file, so that
 * every read of the table fails with SQLITE_CORRUPT. `restore` puts the bytes back and has
 * another connection commit, so that connections already open read the page again.
 */
export function damageTable(filePath: string, table: string): { restore(): void } {
  const db = new Database(filePath);
  db.pragma("wal_checkpoint(TRUNCATE)");
  const rootPage = Number(db.prepare("select rootpage from sqlite_schema where name = ?").pluck().get(table));
  const pageSize = Number(db.pragma("page_size", { simple: true }));
  db.close();
  const offset = (rootPage - 1) * pageSize + 8;
  const fd = openSync(filePath, "r+");
  const saved = Buffer.alloc(200);
  try {
    readSync(fd, saved, 0, saved.length, offset);
    writeSync(fd, Buffer.alloc(saved.length, 0xff), 0, saved.length, offset);
  } finally {
    closeSync(fd);
  }
  return {
    restore() {
      const again = openSync(filePath, "r+");
      try {
        writeSync(again, saved, 0, saved.length, offset);
      } finally {
        closeSync(again);
      }
      const other = new Database(filePath);
      other.exec("create table if not exists touched (x); insert into touched values (1)");
      other.close();
    },
  };
}
