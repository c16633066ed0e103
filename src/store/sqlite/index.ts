import { statSync } from "node:fs";
import { join } from "node:path";
import { type Clock, systemClock } from "../../core/clock.js";
import { type Logger, silentLogger } from "../../core/logger.js";
import type { Store } from "../../core/ports.js";
import { withNulRule } from "../nul-rule.js";
import { logSchemaMigration, type SchemaMigration } from "../schema-migration.js";
import { ChangeSignal } from "./change-signal.js";
import { ensureDirectory, ensurePrivateFile } from "./data-directory.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import { SqliteEmbeddingStore } from "./embedding-store.js";
import { SqliteExecutionStore } from "./execution-store.js";
import { GroupCommit } from "./group-commit.js";
import { SqliteIdempotencyStore } from "./idempotency-store.js";
import { SqliteKeyStore } from "./key-store.js";
import { SqliteLearnedQueryStore } from "./learned-query-store.js";
import { SqliteLimiter } from "./limiter.js";
import { SqliteMemoryStore } from "./memory-store.js";
import { SqliteMessageStore } from "./message-store.js";
import { migrate } from "./migrations.js";
import { openConnection } from "./open-database.js";
import { describeStoreFailure, reasonOf, type StoreFilePlace, storeName } from "./open-failure.js";
import { isSqliteOutage } from "./outage.js";
import { StoreFileLostError, StoreFiles } from "./store-files.js";
import { StoreHealth } from "./store-health.js";
import { SqliteUsageStore } from "./usage-store.js";
import { createWalSync } from "./wal-sync.js";

/** The database file's name inside the data directory unless told otherwise. */
export const DEFAULT_DATABASE_FILE = "skillport.db";

/** The database file of the store in `dataDir`. */
export function databaseFileIn(dataDir: string, fileName = DEFAULT_DATABASE_FILE): string {
  return join(dataDir, fileName);
}

/**
 * Whether `dataDir` certainly holds no store yet (opening one would create it): its database
 * file is not there. A data directory that cannot be looked into (a file in its place, no
 * permission) is not said to lack one: opening it fails and says why (`openFile`), as for
 * every command.
 */
export function lacksDatabase(dataDir: string): boolean {
  try {
    statSync(databaseFileIn(dataDir));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

export interface SqliteStoreOptions {
  /** Directory of the database file; created if missing. */
  dataDir: string;
  fileName?: string;
  /** Only throttles `keys.markUsed` and `keys.markRefusedUse`; every other time comes from the caller. */
  clock?: Clock;
  /** Receives failures of writes nobody awaits (a key's last use or last refused use). */
  logger?: Logger;
  /**
   * The setting that chose `dataDir` (e.g. `SKILLPORT_DATA_DIR or --data-dir`), named with the
   * file when the store cannot be opened.
   */
  dataDirSetting?: string;
}

/** A `Store` with what only the SQLite adapter can tell (for metrics and benchmarks). */
export interface SqliteStore extends Store {
  /** Group commit totals: committed batches, the writes they held, failed batches, fsyncs. */
  readonly groupCommitStats: Readonly<GroupCommit["stats"]>;
}

/**
 * The embedded store: one SQLite file (WAL) that several processes on one machine may
 * share. Two connections, both `synchronous=NORMAL`: the main one, whose saved
 * executions are made durable by the group commit's own fsync of the WAL before they
 * resolve (so a saved execution survives a power cut before the response leaves), and
 * the limiter's (see `SqliteLimiter`). The schema is migrated on open.
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const filePath = databaseFileIn(options.dataDir, options.fileName);
  const { db, limiterDb, migration } = openFile(options.dataDir, filePath, options.dataDirSetting);
  // The files beside the database that tell other processes of changes: made or opened
  // read-write, so a data directory on a read-only disk is refused here, in the words the
  // database file's refusal uses (it was a bare "EROFS: …, open '…-keys'").
  let keyChanges: ChangeSignal;
  let noteChanges: ChangeSignal;
  try {
    keyChanges = new ChangeSignal(`${filePath}-keys`);
    noteChanges = new ChangeSignal(`${filePath}-notes`);
  } catch (err) {
    db.close();
    limiterDb.close();
    throw cannotOpen(err, { filePath, dataDirSetting: options.dataDirSetting });
  }
  const logger = options.logger ?? silentLogger;
  logSchemaMigration(logger, "sqlite", migration);
  const walSync = createWalSync(filePath);
  const files = new StoreFiles({ filePath, wal: walSync, db, others: [limiterDb], logger });
  const health = new StoreHealth({ logger, filePath });
  // Before the stores prepare their statements, so that each read reports how it went.
  health.watchReads(db);
  // A batch is stored once it is on disk in the files at the paths: one written to a file
  // deleted meanwhile fails as an outage (`StoreFiles`), and no later one is taken.
  const syncWal = async () => {
    await walSync.sync();
    files.assertKept();
  };
  const writer = new GroupCommit(db, logger, syncWal, health);
  const ping = db.prepare("select 1 as one").pluck();
  let closed = false;

  return withNulRule({
    keys: new SqliteKeyStore(db, writer, options.clock ?? systemClock, keyChanges),
    executions: new SqliteExecutionStore(db, writer, health),
    idempotency: new SqliteIdempotencyStore(db),
    messages: new SqliteMessageStore(db),
    memory: new SqliteMemoryStore(db),
    embeddings: new SqliteEmbeddingStore(db),
    limiter: new SqliteLimiter(limiterDb, health),
    usage: new SqliteUsageStore(db),
    learnedQueries: new SqliteLearnedQueryStore(db, noteChanges),
    groupCommitStats: writer.stats,
    /**
     * Not ready once the files at the paths are not the ones opened (deleted or replaced:
     * what is written now would be lost, or break the new file at the next start; see
     * `StoreFiles`), while writes fail or while a read that failed still does (see
     * `StoreHealth`); `select 1` alone answers from the open connection either way.
     */
    async ping() {
      if (!files.check()) return false;
      if (!health.ok) health.retryFailedReads();
      if (!health.ok) return false;
      try {
        return ping.get() === 1;
      } catch {
        return false;
      }
    },
    isOutage: isSqliteOutage,
    // Once its files are lost, every connection is `query_only` for good (`StoreFiles`).
    refusesUntilRestart: (err) => files.lost && isSqliteOutage(err),
    async close() {
      if (closed) return;
      closed = true;
      files.close();
      try {
        // Once the files are lost, the last fsync fails as every write does: nothing more can be kept.
        await writer.close().catch((err: unknown) => {
          if (!(err instanceof StoreFileLostError)) throw err;
        });
      } finally {
        walSync.close();
        keyChanges.close();
        noteChanges.close();
        limiterDb.close();
        db.close();
      }
    },
  });
}

/**
 * Creates the directory and the file if missing and opens them. The one place where a store
 * that cannot be opened is reported, for every command that opens one: the driver's or the
 * system's message alone ("unable to open database file") names neither the file nor the
 * setting that chose it, nor what to do.
 */
function openFile(dataDir: string, filePath: string, dataDirSetting: string | undefined): OpenedConnections {
  try {
    ensureDirectory(dataDir);
    ensurePrivateFile(filePath);
    return openConnections(filePath);
  } catch (err) {
    throw cannotOpen(err, { filePath, dataDirSetting });
  }
}

/** The refusal of a store whose files cannot be opened, saying which and what to do. */
function cannotOpen(err: unknown, place: StoreFilePlace): Error {
  const problem = describeStoreFailure(err, place) ?? `${storeName(place)}: ${reasonOf(err)}`;
  return new Error(`Cannot open ${problem}`, { cause: err });
}

interface OpenedConnections {
  db: Database.Database;
  limiterDb: Database.Database;
  /** What the open did to the schema, for the start-up log. */
  migration: SchemaMigration;
}

/** Opens the main connection, migrates, then opens the limiter's; nothing stays open on failure. */
function openConnections(filePath: string): OpenedConnections {
  const db = openConnection(filePath, { synchronous: "NORMAL" });
  try {
    const migration = migrate(db);
    return { db, limiterDb: openConnection(filePath, { synchronous: "NORMAL" }), migration };
  } catch (err) {
    db.close();
    throw err;
  }
}
