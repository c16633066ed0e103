import { type Logger, silentLogger } from "../../core/logger.js";
import { type BetterSqlite3, Database } from "./driver.js";
import { isSqliteOutage } from "./outage.js";

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** At most this many failed reads are kept to run again; more keep readiness failing all the same. */
const MAX_FAILED_READS = 16;

/** Where the store's damage is reported: the file is named, so that an operator knows which to restore. */
export interface HealthReport {
  logger: Logger;
  filePath: string;
}

/**
 * Whether the store can serve, for readiness (`ping`, `/readyz`). `select 1` cannot tell:
 * it reads nothing from the disk, so it succeeds while every write fails or
 * while every read of a damaged table does (every request 503 and `/readyz` 200: a load
 * balancer would keep the replica in rotation).
 *
 * Writes: false from a write that failed with an outage (disk full, I/O error, read-only
 * file…) until a write succeeds again. The writes reported are those made all the time:
 * the group commit's (every execution, a key's last use), the limiter's (requests), and
 * the runner's heartbeat, which runs every few seconds even without traffic, so that a
 * replica a load balancer took out for its failing writes notices their return without a
 * request.
 *
 * Reads: false while a read that failed with an outage (a damaged page: SQLITE_CORRUPT;
 * a failing disk: SQLITE_IOERR…) has not succeeded since. A damage touches some pages
 * only, so another statement's success says nothing of it (the heartbeat's would make
 * readiness flap); and once out of rotation the replica gets no request to run the read
 * again, so the probe runs it again itself (`retryFailedReads`), with its arguments.
 */
export class StoreHealth {
  private writesFailing = false;
  /** Read-only statements whose last run failed with an outage, with that run's arguments. */
  private readonly failedReads = new Map<Statement, unknown[]>();
  /** Damage is logged once, when first met, not at every failed read. */
  private damageLogged = false;

  constructor(private readonly report: HealthReport = { logger: silentLogger, filePath: "" }) {}

  /** True unless the latest write failed with an outage or a read that did has not succeeded since. */
  get ok(): boolean {
    return !this.writesFailing && this.failedReads.size === 0;
  }

  /** Runs a synchronous write and reports how it went; its result or error passes through. */
  track<T>(write: () => T): T {
    let result: T;
    try {
      result = write();
    } catch (err) {
      this.failed(err);
      throw err;
    }
    this.succeeded();
    return result;
  }

  /** A write landed. */
  succeeded(): void {
    this.writesFailing = false;
    if (this.damageLogged && this.ok) this.damageLogged = false;
  }

  /** Only an outage counts: a write refused for its own sake (a constraint) says nothing of the disk. */
  failed(err: unknown): void {
    if (!isSqliteOutage(err)) return;
    this.writesFailing = true;
    this.noteDamage(err);
  }

  /**
   * Makes every read-only statement prepared on `db` from now on report how its runs go.
   * Statements that write (`returning` ones included) are left alone: they are reported
   * as writes, and `retryFailedReads` must not run one again.
   */
  watchReads(db: BetterSqlite3.Database): void {
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      const statement = prepare(source) as Statement;
      if (statement.reader && statement.readonly) this.watch(statement);
      return statement;
    }) as typeof db.prepare;
  }

  /** Runs each failed read again (for the probe): one that succeeds now is forgotten. */
  retryFailedReads(): void {
    for (const [statement, args] of this.failedReads) {
      try {
        statement.all(...args);
      } catch {
        // Reported by the statement's own wrapper.
      }
    }
  }

  private watch(statement: Statement): void {
    const health = this;
    // Own properties on the statement: `pluck()`, `raw()`… return the same object.
    const reported = <R>(run: (...args: unknown[]) => R) =>
      function (this: Statement, ...args: unknown[]): R {
        try {
          const result = run.apply(this, args);
          health.readSucceeded(this);
          return result;
        } catch (err) {
          health.readFailed(this, args, err);
          throw err;
        }
      };
    statement.get = reported(statement.get);
    statement.all = reported(statement.all);
    const { iterate } = statement;
    statement.iterate = function* (this: Statement, ...args: unknown[]) {
      try {
        yield* iterate.apply(this, args);
      } catch (err) {
        health.readFailed(this, args, err);
        throw err;
      }
      health.readSucceeded(this);
    };
  }

  private readSucceeded(statement: Statement): void {
    // The one cost on every read of a healthy store: a size check.
    if (this.failedReads.size === 0 || !this.failedReads.delete(statement)) return;
    if (this.damageLogged && this.ok) this.damageLogged = false;
  }

  private readFailed(statement: Statement, args: unknown[], err: unknown): void {
    if (!isSqliteOutage(err)) {
      // Failed for its own sake (a bad argument, a closed connection): no news of the disk.
      this.failedReads.delete(statement);
      return;
    }
    if (this.failedReads.size < MAX_FAILED_READS || this.failedReads.has(statement)) {
      this.failedReads.set(statement, args);
    }
    this.noteDamage(err);
  }

  /**
   * A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) does not heal by itself, unlike a full
   * disk or a lock held by another process: an operator must restore or repair it, so it
   * is an error, naming the file. The driver's message ("database disk image is
   * malformed") holds no data.
   */
  private noteDamage(err: unknown): void {
    if (this.damageLogged || !isDamage(err)) return;
    this.damageLogged = true;
    this.report.logger.error(
      { path: this.report.filePath, code: err.code, reason: err.message },
      "the database file is damaged: answering service_unavailable and not ready until its failed reads and writes succeed; restore it from a backup (or recover it with `sqlite3 FILE .recover`)",
    );
  }
}

/** SQLITE_CORRUPT or SQLITE_NOTADB, with their extended codes. */
function isDamage(err: unknown): err is InstanceType<typeof Database.SqliteError> {
  return err instanceof Database.SqliteError && /^SQLITE_(CORRUPT|NOTADB)/.test(err.code);
}
