import pg from "pg";
import { type Clock, systemClock } from "../../core/clock.js";
import { type Logger, silentLogger } from "../../core/logger.js";
import type { Limiter, Store } from "../../core/ports.js";
import { withNulRule } from "../nul-rule.js";
import { logSchemaMigration } from "../schema-migration.js";
import { PostgresEmbeddingStore } from "./embedding-store.js";
import { PostgresExecutionStore } from "./execution-store.js";
import { PostgresIdempotencyStore } from "./idempotency-store.js";
import { PostgresKeyStore } from "./key-store.js";
import { PostgresLearnedQueryStore } from "./learned-query-store.js";
import { PostgresMemoryStore } from "./memory-store.js";
import { PostgresMessageStore } from "./message-store.js";
import { migratePostgres } from "./migrations.js";
import { isPostgresOutage, outageReporter } from "./outage.js";
import { PostgresSignalChannel } from "./signal-channel.js";
import { PostgresUsageStore } from "./usage-store.js";

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (SKILLPORT_DATABASE_URL). */
  databaseUrl: string;
  /** The schema to use, created if missing (tests give each store its own); by default the one the connection's `search_path` selects (`current_schema()`). */
  schema?: string;
  /** The limit counters: PostgreSQL holds none (Redis does, see `openRedisLimiter`). Closed with the store. */
  limiter: Limiter & { close(): Promise<void> };
  /** Connections per process (pg pool size). */
  poolSize?: number;
  clock?: Clock;
  logger?: Logger;
}

const TIMESTAMPTZ_OID = 1184;

/**
 * Deadlines on every connection, so that a PostgreSQL that stops answering (a frozen
 * server, a dead TCP path, a failover whose old host vanished without a reset) costs a
 * request a few seconds and the contract's 503 with Retry-After (docs/deploy.md), never
 * a hang until the kernel gives up on the socket (minutes). A connection (a new one, or
 * one the pool is asked for when all are busy) comes within CONNECT_TIMEOUT_MS; a query
 * answers within QUERY_TIMEOUT_MS, far above any statement skillport sends (single-row
 * reads and writes, small transactions). Both failures are outages (`isPostgresOutage`).
 */
const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 5_000;
/**
 * The server's side of the same deadline: a statement or a transaction left open by a
 * client that vanished (its locks held) ends there too, with room above the client's
 * deadline so that the client's timeout is the one a request meets.
 */
const SERVER_STATEMENT_TIMEOUT_MS = 30_000;
const SERVER_IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
/** TCP keep-alive probes from this idle time on, so a silently dead connection is found. */
const KEEP_ALIVE_DELAY_MS = 10_000;
/** Migrating may wait for another replica's migration (an advisory lock): a longer deadline. */
const MIGRATION_TIMEOUT_MS = 120_000;
/** `/readyz` asks PostgreSQL with this deadline, as it never waits on Redis (see health.ts). */
const PING_TIMEOUT_MS = 1_000;
/** Closing waits this long for connections to say goodbye; a hung server gets no more. */
const CLOSE_TIMEOUT_MS = 2_000;

/**
 * Timestamps come back as the ISO 8601 UTC strings the core uses everywhere (pg's own
 * parser, then `toISOString`), so that a record reads back exactly as it was saved.
 */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === TIMESTAMPTZ_OID) {
      const parseDate = pg.types.getTypeParser(TIMESTAMPTZ_OID, "text");
      return (text: string) => (parseDate(text) as Date).toISOString();
    }
    return pg.types.getTypeParser(oid, format ?? "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * The scale-out store: keys, execution records, runners, idempotency, messages, memory,
 * cached embeddings and usage counts in PostgreSQL, shared by any number of replicas; signals between replicas over
 * LISTEN/NOTIFY; limit counters in the given limiter (Redis). The schema is migrated on
 * open, safely when several replicas open it at once (see `migratePostgres`).
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const logger = options.logger ?? silentLogger;
  const clientConfig: pg.ClientConfig = {
    connectionString: options.databaseUrl,
    // Without a configured schema, the connection's own `search_path` decides (the role's
    // or the database's setting, or `options` in the URL): since PostgreSQL 15 a user
    // usually owns a schema of its own rather than creating tables in `public`.
    ...(options.schema === undefined
      ? {}
      : { options: `-c search_path=${pg.escapeIdentifier(options.schema)}` }),
    types,
    application_name: "skillport",
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    statement_timeout: SERVER_STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: SERVER_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
  };
  // A query that timed out leaves its connection waiting for an answer that may never
  // come (node-postgres issue #3399): `pool.query` discards such a connection (it releases
  // it with the error), and so do `inTransaction` and the migration below.
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10 });
  // An idle pooled connection that the server drops must not crash the process.
  pool.on("error", (err) => logger.warn({ err }, "an idle PostgreSQL connection failed"));
  let signals: PostgresSignalChannel;
  let schema = options.schema ?? "public";
  try {
    const client = new pg.Client({
      ...clientConfig,
      query_timeout: MIGRATION_TIMEOUT_MS,
      statement_timeout: undefined,
    });
    try {
      // Every failure of the first connection says which setting to check, the driver's own
      // too ("SASL: … client password must be a string" for a URL without a password).
      await client.connect().catch((err: unknown) => {
        throw cannotConnect(err, { hasPassword: hasPassword(client) });
      });
      if (options.schema === undefined) {
        schema = await currentSchema(client);
        await refuseTablesLeftInPublic(client, schema);
      }
      const migration = await migratePostgres(client, schema).catch((err: unknown) => {
        throw (err as { code?: unknown }).code === INSUFFICIENT_PRIVILEGE
          ? cannotCreateTables(err, schema)
          : err;
      });
      logSchemaMigration(logger, "postgresql", migration);
    } finally {
      await withDeadline(client.end(), CLOSE_TIMEOUT_MS);
    }
    signals = await PostgresSignalChannel.open(pool, clientConfig, schema, logger);
  } catch (err) {
    await withDeadline(pool.end(), CLOSE_TIMEOUT_MS);
    throw err instanceof CannotConnectError || !isUnreachable(err) ? err : cannotConnect(err);
  }

  const executions = new PostgresExecutionStore(pool);
  let closed = false;
  return withNulRule({
    keys: new PostgresKeyStore(pool, options.clock ?? systemClock, logger),
    executions,
    idempotency: new PostgresIdempotencyStore(pool),
    messages: new PostgresMessageStore(pool),
    memory: new PostgresMemoryStore(pool),
    embeddings: new PostgresEmbeddingStore(pool),
    usage: new PostgresUsageStore(pool),
    learnedQueries: new PostgresLearnedQueryStore(pool),
    limiter: options.limiter,
    signals,
    async ping() {
      // The query itself ends by QUERY_TIMEOUT_MS (its connection then discarded).
      const answered = pool.query("select 1").then(
        () => true,
        () => false,
      );
      return (await withDeadline(answered, PING_TIMEOUT_MS)) ?? false;
    },
    isOutage: outageReporter(logger),
    // Every PostgreSQL outage may pass while this process runs: the server comes back, a
    // standby finishes taking over, space is freed, a damaged page or index is repaired.
    refusesUntilRestart: () => false,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await executions.flush();
      } finally {
        // A hung server never answers the goodbye: the shutdown must end all the same.
        await withDeadline(signals.close(), CLOSE_TIMEOUT_MS);
        await options.limiter.close();
        await withDeadline(pool.end(), CLOSE_TIMEOUT_MS);
      }
    },
  });
}

/** `promise`'s value, or undefined once `ms` have passed (its rejection is dropped too). */
async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** SQLSTATE 42501: e.g. "permission denied for schema public" (PostgreSQL 15+ grants no CREATE there). */
const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * The schema the connection's `search_path` creates tables in. None (its schemas are all
 * missing, e.g. `"$user"` without such a schema and no `public`) is refused with what to do.
 */
async function currentSchema(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ schema: string | null }>("select current_schema() as schema");
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new Error(
      "PostgreSQL at SKILLPORT_DATABASE_URL: the user's search_path names no existing schema; " +
        "create one it owns and set it (ALTER ROLE ... SET search_path), see docs/deploy.md.",
    );
  }
  return schema;
}

/**
 * Earlier versions always used `public`: a deployment whose role's search_path selects
 * another schema would start on new, empty tables there while its data stays in `public`.
 * Refused, saying how to choose, rather than started on an empty store.
 */
async function refuseTablesLeftInPublic(client: pg.Client, schema: string): Promise<void> {
  if (schema === "public") return;
  const { rows } = await client.query<{ here: string | null; public: string | null }>(
    "select to_regclass(format('%I.schema_migrations', $1::text))::text as here, to_regclass('public.schema_migrations')::text as public",
    [schema],
  );
  if (rows[0]?.public && !rows[0].here) {
    throw new Error(
      `PostgreSQL at SKILLPORT_DATABASE_URL: skillport's tables are in schema "public" but the user's ` +
        `search_path selects "${schema}", where there are none. Set the role's search_path to public ` +
        `(ALTER ROLE ... SET search_path = public), or move the tables; see docs/deploy.md.`,
    );
  }
}

function cannotCreateTables(err: unknown, schema: string): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(
    `PostgreSQL at SKILLPORT_DATABASE_URL: the user cannot create skillport's tables in schema ` +
      `"${schema}" (${message}). Give it a schema of its own as its search_path, or ` +
      `GRANT CREATE ON SCHEMA ${schema}; see docs/deploy.md.`,
    { cause: err },
  );
}

/**
 * Whether a start-up failure means the server named by the URL could not be reached or
 * would not let this user in (SQLSTATE class 28, invalid authorization; 3D000, no such
 * database), rather than a failure of the migration itself.
 */
function isUnreachable(err: unknown): boolean {
  const { code } = (err ?? {}) as { code?: unknown };
  if (typeof code === "string" && (code.startsWith("28") || code === "3D000")) return true;
  return isPostgresOutage(err);
}

/** A start-up failure to reach PostgreSQL, or to be let in, named after its setting. */
class CannotConnectError extends Error {}

/**
 * Whether the client has a password to give (from the URL, PGPASSWORD or a function); a
 * `.pgpass` file may still supply one when it has none.
 */
function hasPassword(client: pg.Client): boolean {
  const { password } = client as { password?: unknown };
  return typeof password === "function" || (typeof password === "string" && password !== "");
}

/**
 * Names the setting to check, as the Redis limiter does ("Cannot connect to Redis at
 * SKILLPORT_REDIS_URL: …"): with both services on one host, the driver's own message
 * ("connect ECONNREFUSED 127.0.0.1:5432") does not say which one is down. The URL is not
 * repeated (it may hold a password); the driver's messages never contain it. A URL
 * without a password to a server that asks for one fails in the driver, with a message
 * about SASL or a "client password": it is said plainly. The original stays the cause,
 * and its code is kept so the error is still an outage.
 */
function cannotConnect(err: unknown, { hasPassword = true } = {}): Error {
  const message = err instanceof Error ? err.message : String(err);
  const reason =
    !hasPassword && /password/i.test(message)
      ? `the server asks for a password and SKILLPORT_DATABASE_URL has none: ${message}`
      : message;
  const wrapped = new CannotConnectError(
    `Cannot connect to PostgreSQL at SKILLPORT_DATABASE_URL (${reason})`,
    {
      cause: err,
    },
  );
  const { code } = (err ?? {}) as { code?: unknown };
  if (typeof code === "string") Object.assign(wrapped, { code });
  return wrapped;
}
