import type { StoreConfig } from "../config.js";
import type { Logger } from "../core/logger.js";
import type { Limiter, Store } from "../core/ports.js";
import { urlWithoutCredentials } from "../core/skills/url-credentials.js";
import { databaseFileIn, lacksDatabase, openSqliteStore } from "./sqlite/index.js";
import { STORE_KINDS, type StoreKind, storeKindOf } from "./store-kinds.js";

/** What chooses the embedded store's directory (every command's --data-dir sets the variable). */
export const DATA_DIR_SETTING = "SKILLPORT_DATA_DIR or --data-dir";

/**
 * Why the configured store is not there, or undefined: an embedded store whose data
 * directory holds no database yet. The one wording of it for every command that refuses it:
 * those that read or change what a server's store holds (every `keys` action but `create`,
 * `learning`) and `mcp`, whose key can only be in an existing store. Each refuses rather
 * than create an empty store where a mistyped --data-dir or the wrong working directory
 * points and answer "No keys yet", "no such key" or "invalid key" about it. A data
 * directory that cannot be read is not "missing": opening it says why, as `serve` does.
 */
export function missingStore(config: Pick<StoreConfig, "dataDir" | "databaseUrl">): string | undefined {
  if (storeKindOf(config) !== "sqlite" || !lacksDatabase(config.dataDir)) return undefined;
  return `there is no store in ${config.dataDir}: ${DATA_DIR_SETTING} must name the data directory where the keys were created (the server's).`;
}

/**
 * The store the configuration names, as an operator finds it: `the SQLite store
 * /srv/data/skillport.db`, or `the PostgreSQL store postgres://app:[redacted]@db/skillport`
 * (never its password). The `keys` and `learning` commands say it on every change and
 * listing: a key created in another directory's new store looks like any other, and the
 * server then refuses it as unknown.
 */
export function describeStore(config: Pick<StoreConfig, "dataDir" | "databaseUrl">): string {
  const { databaseUrl } = config;
  const place =
    databaseUrl === undefined ? databaseFileIn(config.dataDir) : urlWithoutCredentials(databaseUrl);
  return `the ${STORE_KINDS[storeKindOf(config)].label} store ${place}`;
}

/**
 * The server and database a URL names, as a log line says which ones a replica joined:
 * scheme, host, port and path (`postgres://db.internal:5432/skillport`,
 * `redis://redis.internal:6379/2`), never who connects (user, password) nor the query,
 * whose options may hold a password (`?password=`, `?sslpassword=`).
 */
export function serverAddress(url: string): string {
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname}`;
  } catch {
    return "[not a URL]";
  }
}

export interface OpenStoreOptions {
  /**
   * False for a process that never counts a request (the `keys` and `learning` commands):
   * it does not connect to Redis, so an operator can still revoke a leaked key while
   * Redis is down. Where Redis is configured, the store's limiter then throws if used;
   * the embedded store without Redis keeps its own limiter (opening it costs nothing).
   */
  limits?: boolean;
}

/**
 * Opens the store the configuration names (`storeKindOf`), with its limits counted in Redis
 * when SKILLPORT_REDIS_URL is set.
 */
export async function openStore(
  config: StoreConfig,
  logger: Logger,
  { limits = true }: OpenStoreOptions = {},
): Promise<Store> {
  const { redisUrl } = config;
  const limiter =
    redisUrl === undefined ? undefined : await openSharedLimiter({ ...config, redisUrl }, logger, limits);
  try {
    return await OPENERS[storeKindOf(config)](config, logger, limiter);
  } catch (err) {
    // Redis's open connection would keep the process alive after the error was printed.
    await limiter?.close();
    throw err;
  }
}

type SharedLimiter = Limiter & { close(): Promise<void> };

/** How each kind of store opens, given the Redis limiter if SKILLPORT_REDIS_URL is set. */
const OPENERS: Record<
  StoreKind,
  (config: StoreConfig, logger: Logger, limiter: SharedLimiter | undefined) => Promise<Store>
> = {
  async sqlite(config, logger, limiter) {
    const sqlite = openSqliteStore({ dataDir: config.dataDir, logger, dataDirSetting: DATA_DIR_SETTING });
    if (!limiter) return sqlite;
    // Everything but the limiter stays SQLite's, `ping` and `isOutage` too: the Redis limiter
    // answers its own outages (SKILLPORT_REDIS_DOWN), and Redis down leaves a replica ready.
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
  },
  async postgresql({ databaseUrl = "", databasePoolSize }, logger, limiter) {
    // PostgreSQL holds no limit counters. (`databaseUrl` is set: it chose this kind.)
    if (!limiter) {
      throw new Error(
        "Invalid configuration: SKILLPORT_DATABASE_URL needs SKILLPORT_REDIS_URL too: limits are counted in Redis.",
      );
    }
    const { openPostgresStore } = await import("./postgres/index.js");
    return openPostgresStore({ databaseUrl, poolSize: databasePoolSize, limiter, logger });
  },
};

/**
 * The limiter on Redis (SKILLPORT_REDIS_URL). The scale-out adapters (and their drivers)
 * load only when configured: the embedded default, e.g. a `skillport mcp` an assistant
 * spawns, starts without them.
 */
async function openSharedLimiter(
  config: StoreConfig & { redisUrl: string },
  logger: Logger,
  limits: boolean,
): Promise<SharedLimiter> {
  if (!limits) return NO_LIMITS;
  const { openRedisLimiter } = await import("./redis/index.js");
  return openRedisLimiter({
    redisUrl: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    whenDown: config.redisDown,
    timeoutMs: config.redisTimeoutMs,
    logger,
  });
}

/** The limiter of a store opened without limits: no command that counts requests may run on it. */
const NO_LIMITS: SharedLimiter = {
  consume: refuseToCount,
  peek: refuseToCount,
  acquire: refuseToCount,
  release: refuseToCount,
  close: async () => {},
};

function refuseToCount(): never {
  throw new Error(
    "This store was opened without limits (openStore's `limits: false`): it cannot count requests.",
  );
}
