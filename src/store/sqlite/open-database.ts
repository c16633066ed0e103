import { type BetterSqlite3, Database } from "./driver.js";

/** How long a connection waits for another connection's write lock before failing. */
export const BUSY_TIMEOUT_MS = 5000;

export interface ConnectionOptions {
  /**
   * `FULL` fsyncs the WAL on every commit (durable against power loss); `NORMAL` only at
   * checkpoints (durable against a process crash, not against power loss).
   */
  synchronous: "FULL" | "NORMAL";
}

/**
 * Opens one connection to the database file with the settings every connection needs:
 * WAL (readers never block the writer, and other processes see each commit at once),
 * a busy timeout (so two processes queue for the write lock instead of failing) and
 * foreign keys. Settings other than `journal_mode` are per connection, so each
 * connection sets them itself.
 */
export function openConnection(filePath: string, options: ConnectionOptions): BetterSqlite3.Database {
  const db = new Database(filePath);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    enableWal(db);
    // After WAL, not before: better-sqlite3 builds SQLite with DEFAULT_WAL_SYNCHRONOUS=1,
    // which lowers `synchronous` to NORMAL when a connection enters WAL mode.
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma("foreign_keys = ON");
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Switching to WAL needs an exclusive lock for a moment, and SQLite does not always run
 * the busy handler for it: when two processes open a new file at once, one of them can
 * get SQLITE_BUSY at once. The mode is stored in the file, so retrying until either
 * process has set it is enough.
 */
function enableWal(db: BetterSqlite3.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (mode !== "wal") throw new Error(`SQLite refused WAL mode (journal_mode is ${String(mode)})`);
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
      sleepSync(10);
    }
  }
}

/** True for SQLITE_BUSY and its extended codes. */
export function isBusy(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith("SQLITE_BUSY");
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread; only used while opening, where the caller is synchronous anyway. */
function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}
