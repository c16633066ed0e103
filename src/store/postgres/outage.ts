import type { Logger } from "../../core/logger.js";

/**
 * SQLSTATE codes (https://www.postgresql.org/docs/current/errcodes-appendix.html) that say
 * the server cannot serve right now, whatever the query: by class, 08 connection
 * exception, 53 insufficient resources (53100 disk full, 53300 too many connections), 58
 * system error (an I/O error on the server); one by one, the server shutting down or
 * starting up (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now),
 * 25006 read_only_sql_transaction, which a write meets on a standby still taking over
 * after a failover, and damage (`DAMAGE_SQLSTATES`). Others (unique violation, syntax,
 * serialization…) are about the query.
 */
const OUTAGE_CLASSES = new Set(["08", "53", "58"]);
const OUTAGE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "25006"]);
/**
 * XX001 data_corrupted (a damaged page: "invalid page in block 0 of relation …") and
 * XX002 index_corrupted: the request is not wrong and the code has no bug, as with
 * SQLite's SQLITE_CORRUPT, so it is answered 503, not 500; the same request succeeds once
 * an operator has repaired the database.
 */
const DAMAGE_SQLSTATES = new Set(["XX001", "XX002"]);

/** How the socket to the server fails when it is down, restarting or out of reach. */
const OUTAGE_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * node-postgres's own errors for a connection lost or never made carry no code, only a
 * message: the server closed the socket ("Connection terminated unexpectedly", "…due to
 * connection timeout"), a client already broken, a client's connect deadline ("timeout
 * expired", `connectionTimeoutMillis` of a lone `pg.Client`), the pool's wait for a
 * connection ran out (the pool's `connectionTimeoutMillis`), or a query's deadline
 * (`query_timeout`).
 */
const OUTAGE_MESSAGES = [
  /^Connection terminated/,
  /^timeout expired$/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
];

/**
 * True when `err` means PostgreSQL cannot serve now (see `Store.isOutage`). An
 * AggregateError (Node tried every address of the host) is an outage when any of its
 * errors is, and an error is one when its cause is.
 */
export function isPostgresOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as { code?: unknown };
  if (typeof code === "string") {
    // Errnos first: EPIPE has the shape of a SQLSTATE too.
    if (OUTAGE_ERRNOS.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) {
      return OUTAGE_CLASSES.has(code.slice(0, 2)) || OUTAGE_SQLSTATES.has(code) || DAMAGE_SQLSTATES.has(code);
    }
  }
  if (OUTAGE_MESSAGES.some((pattern) => pattern.test(err.message))) return true;
  // The start-up's "Cannot connect to PostgreSQL at SKILLPORT_DATABASE_URL (…)" wraps one.
  if (err.cause !== undefined && isPostgresOutage(err.cause)) return true;
  return err instanceof AggregateError && err.errors.some(isPostgresOutage);
}

/**
 * `isPostgresOutage`, logging the first damage it is asked about as an error: unlike a
 * server away or out of disk, damage does not heal by itself, and every request that
 * reads the damaged page or index fails until an operator repairs it, while the outage's
 * own log line (`Skillport.errorOf`) is a warning. Once: each of those requests asks.
 */
export function outageReporter(logger: Logger): (err: unknown) => boolean {
  let damageLogged = false;
  return (err) => {
    const { code } = (err ?? {}) as { code?: unknown };
    if (!damageLogged && err instanceof Error && typeof code === "string" && DAMAGE_SQLSTATES.has(code)) {
      damageLogged = true;
      logger.error(
        { code, reason: err.message },
        "PostgreSQL reports damaged data: answering service_unavailable to the requests that read it; " +
          "repair it (REINDEX a damaged index, or restore the table from a backup; the server's log names the relation)",
      );
    }
    return isPostgresOutage(err);
  };
}
