import type { Logger } from "../../core/logger.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import { fileIdentity } from "./file-identity.js";
import type { WalSync } from "./wal-sync.js";

/** How often the files are looked at without traffic (writes look at them after each fsync). */
const CHECK_EVERY_MS = 5_000;

/** The store's file that is no longer the one at its path. */
type LostFile = "database" | "wal";

/**
 * What a write meets once the store's files are gone: an outage (`isSqliteOutage`), so a
 * request is answered `service_unavailable` with Retry-After, as for a full disk.
 */
export class StoreFileLostError extends Error {
  readonly code = "SKILLPORT_STORE_FILE_LOST";
}

export interface StoreFilesOptions {
  /** The database file. */
  filePath: string;
  wal: Pick<WalSync, "unlinked">;
  /** The main connection: it writes the WAL back into the database file when the WAL is lost. */
  db: Database.Database;
  /** The store's other connections: made read-only with the main one once a file is lost. */
  others: Database.Database[];
  logger: Logger;
}

/**
 * Whether the files the store writes are still those at their paths. SQLite writes to the
 * files it opened, whatever happens to their names: once `skillport.db` is deleted or
 * replaced, or `skillport.db-wal` is deleted, every commit goes to a file that is gone at
 * the next start, while each answer says it is stored. Once that is seen (after each fsync of the group commit,
 * every few seconds, and at each readiness probe) the store stops taking writes for good
 * (`query_only` on every connection: a write fails SQLITE_READONLY, an outage), so that no
 * record is answered stored into a lost file; readiness fails, and one error line tells the
 * operator to restart. A deleted WAL still holds, through SQLite's descriptor, every commit
 * since the last checkpoint: it is checkpointed into the database file first, its one
 * chance to be kept.
 */
export class StoreFiles {
  private readonly openedFile: string | undefined;
  /** Set once a file is lost; `kept`: every commit is in the file at the database path all the same. */
  private lostFile: { file: LostFile; kept: boolean } | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: StoreFilesOptions) {
    this.openedFile = fileIdentity(options.filePath);
    this.timer = setInterval(() => {
      try {
        this.check();
      } catch {
        // A `stat` refused (a permission changed): the next check, or the probe's, tells.
      }
    }, CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** True once a file was found lost: the store then takes no write until the process restarts. */
  get lost(): boolean {
    return this.lostFile !== undefined;
  }

  /** True while the files at the paths are the ones the store writes: a `stat` and an `fstat`. */
  check(): boolean {
    if (this.lostFile) return false;
    const { filePath, wal } = this.options;
    if (fileIdentity(filePath) !== this.openedFile) this.lose("database");
    else if (wal.unlinked()) this.lose("wal");
    return this.lostFile === undefined;
  }

  /**
   * For the group commit, after each fsync: throws unless what was committed is in the
   * file at the database path (the writes then fail as an outage, instead of answering
   * stored what the next start will not find).
   */
  assertKept(): void {
    if (this.check() || this.lostFile?.kept) return;
    throw new StoreFileLostError(
      `The database file ${this.options.filePath} or its WAL was deleted or replaced while open; the store takes no writes until the process restarts.`,
    );
  }

  close(): void {
    clearInterval(this.timer);
  }

  private lose(file: LostFile): void {
    const { filePath, db, others, logger } = this.options;
    const kept = file === "wal" && this.writeBack();
    this.lostFile = { file, kept };
    for (const connection of [db, ...others]) connection.pragma("query_only = 1");
    const refusing =
      "the store now refuses every write (service_unavailable, not ready): restart the process to use the files at the paths";
    if (file === "database") {
      logger.error(
        { path: filePath },
        `the database file was deleted or replaced while open (this process wrote to the old one, so records stored since then are not in the file at the path); ${refusing}. Stop the server before moving, restoring or deleting the database file.`,
      );
    } else {
      logger.error(
        { path: `${filePath}-wal`, written_back: kept },
        `the database's WAL file was deleted while open; ${
          kept
            ? "its records were written back into the database file first, so none is lost"
            : "its records since the last checkpoint could not be written back into the database file (another process reads it) and are lost at restart"
        }; ${refusing}. Never delete skillport.db-wal while a skillport process uses the data directory.`,
      );
    }
  }

  /**
   * Checkpoints the deleted WAL, which SQLite still holds open, into the database file and
   * empties it (resetting the shared index, so that a process opening the files afresh
   * does not read frames the new WAL lacks). True when every frame is written back.
   */
  private writeBack(): boolean {
    try {
      const [result] = this.options.db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
      return result?.busy === 0;
    } catch {
      return false;
    }
  }
}
