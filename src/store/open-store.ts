import type { Config } from "../config.js";
import type { Logger } from "../core/logger.js";
import type { Store } from "../core/ports.js";
import { openSqliteStore } from "./sqlite/index.js";

export type StoreConfig = Pick<
  Config,
  | "dataDir"
  | "databaseUrl"
  | "databasePoolSize"
  | "redisUrl"
  | "redisKeyPrefix"
  | "redisDown"
  | "redisTimeoutMs"
>;

/**
 * Opens the store the configuration names: the embedded SQLite file by default;
 * PostgreSQL + Redis when SKILLPORT_DATABASE_URL is set (it needs SKILLPORT_REDIS_URL:
 * PostgreSQL holds no limit counters). Redis alone replaces only SQLite's limiter.
 */
export async function openStore(config: StoreConfig, logger: Logger): Promise<Store> {
  if (config.databaseUrl !== undefined && config.redisUrl === undefined) {
    throw new Error("SKILLPORT_DATABASE_URL needs SKILLPORT_REDIS_URL too: limits are counted in Redis.");
  }
  // The scale-out adapters (and their drivers) load only when configured: the embedded
  // default, e.g. a `skillport mcp` an assistant spawns, starts without them.
  const limiter =
    config.redisUrl === undefined
      ? undefined
      : await (await import("./redis/index.js")).openRedisLimiter({
          redisUrl: config.redisUrl,
          keyPrefix: config.redisKeyPrefix,
          whenDown: config.redisDown,
          timeoutMs: config.redisTimeoutMs,
          logger,
        });
  if (config.databaseUrl !== undefined && limiter) {
    try {
      const { openPostgresStore } = await import("./postgres/index.js");
      return await openPostgresStore({
        databaseUrl: config.databaseUrl,
        poolSize: config.databasePoolSize,
        limiter,
        logger,
      });
    } catch (err) {
      await limiter.close();
      throw err;
    }
  }
  const sqlite = openSqliteStore({ dataDir: config.dataDir, logger });
  if (!limiter) return sqlite;
  return {
    ...sqlite,
    limiter,
    async close() {
      try {
        await sqlite.close();
      } finally {
        await limiter.close();
      }
    },
  };
}
