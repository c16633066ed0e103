import pg from "pg";
import { type Clock, systemClock } from "../../core/clock.js";
import { type Logger, silentLogger } from "../../core/logger.js";
import type { Limiter, Store } from "../../core/ports.js";
import { PostgresEmbeddingStore } from "./embedding-store.js";
import { PostgresExecutionStore } from "./execution-store.js";
import { PostgresIdempotencyStore } from "./idempotency-store.js";
import { PostgresKeyStore } from "./key-store.js";
import { PostgresLearnedQueryStore } from "./learned-query-store.js";
import { PostgresMemoryStore } from "./memory-store.js";
import { PostgresMessageStore } from "./message-store.js";
import { migratePostgres } from "./migrations.js";
import { isPostgresOutage } from "./outage.js";
import { PostgresSignalChannel } from "./signal-channel.js";
import { PostgresUsageStore } from "./usage-store.js";

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (SKILLPORT_DATABASE_URL). */
  databaseUrl: string;
  /** The schema to use, created if missing (tests give each store its own); default `public`. */
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
  const schema = options.schema ?? "public";
  const clientConfig: pg.ClientConfig = {
    connectionString: options.databaseUrl,
    options: `-c search_path=${pg.escapeIdentifier(schema)}`,
    types,
    application_name: "skillport",
  };
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10 });
  // An idle pooled connection that the server drops must not crash the process.
  pool.on("error", (err) => logger.warn({ err }, "an idle PostgreSQL connection failed"));
  let signals: PostgresSignalChannel;
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client, schema);
    } finally {
      client.release();
    }
    signals = await PostgresSignalChannel.open(pool, clientConfig, schema, logger);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }

  const executions = new PostgresExecutionStore(pool);
  let closed = false;
  return {
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
      try {
        await pool.query("select 1");
        return true;
      } catch {
        return false;
      }
    },
    isOutage: isPostgresOutage,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await executions.flush();
      } finally {
        await signals.close();
        await options.limiter.close();
        await pool.end();
      }
    },
  };
}
