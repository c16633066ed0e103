import { Database } from "./driver.js";
import { StoreFileLostError } from "./store-files.js";

/**
 * SQLite's primary result codes (https://sqlite.org/rescode.html) that say the database
 * cannot serve right now, whatever the request: the disk is full or failing, the file is
 * read-only, gone, damaged or not a database, or another process held the write lock past
 * the busy timeout. A request that meets one is not wrong and the code has no bug: the
 * same request may succeed once an operator (or the other process) is done. Other codes
 * (SQLITE_CONSTRAINT, SQLITE_ERROR, SQLITE_MISUSE…) point at the statement or the code.
 */
const OUTAGE_CODES = new Set([
  "SQLITE_FULL",
  "SQLITE_IOERR",
  "SQLITE_READONLY",
  "SQLITE_CANTOPEN",
  "SQLITE_CORRUPT",
  "SQLITE_NOTADB",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_PROTOCOL",
]);

/**
 * What Node's file calls of the adapter itself (the fsync of the WAL, `wal-sync.ts`) fail
 * with when the disk is: failing, full, over quota, or remounted read-only.
 */
const OUTAGE_ERRNOS = new Set(["EIO", "ENOSPC", "EDQUOT", "EROFS"]);

/**
 * True when `err` means the SQLite store cannot serve now (see `Store.isOutage`). Extended
 * codes (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, SQLITE_BUSY_SNAPSHOT…) count as
 * their primary code. So does a write the store refuses once its files are lost (`StoreFiles`).
 */
export function isSqliteOutage(err: unknown): boolean {
  if (err instanceof StoreFileLostError) return true;
  if (err instanceof Database.SqliteError) {
    const primary = /^SQLITE_[A-Z]+/.exec(err.code)?.[0];
    return primary !== undefined && OUTAGE_CODES.has(primary);
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err instanceof Error && typeof code === "string" && OUTAGE_ERRNOS.has(code);
}
