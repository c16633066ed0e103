import { Redis } from "ioredis";
import { type Logger, silentLogger } from "../../core/logger.js";
import { DegradableLimiter, type RedisDownPolicy } from "./degradable-limiter.js";
import { firstConnection } from "./first-connection.js";
import { RedisLimiter } from "./limiter.js";

export type { RedisDownPolicy } from "./degradable-limiter.js";

export interface RedisLimiterOptions {
  /** `redis://[:password@]host:port[/db]` (SKILLPORT_REDIS_URL). */
  redisUrl: string;
  /** Prefix of every key; default `skillport:`. */
  keyPrefix?: string;
  whenDown?: RedisDownPolicy;
  /** How long a command may go unanswered before Redis counts as lost (ms); default 1000. */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * The shared limiter on Redis, wrapped in the degradation policy. Commands fail at once
 * while the connection is down (no offline queue) or after `timeoutMs` without an answer;
 * the first failure makes the policy answer the calls after it without waiting on Redis
 * until a probe finds it back, and ioredis keeps reconnecting. Start-up waits for the
 * first connection: a replica never starts degraded without saying so.
 */
export async function openRedisLimiter(options: RedisLimiterOptions): Promise<DegradableLimiter> {
  const logger = options.logger ?? silentLogger;
  let redis: Redis | undefined;
  // Why the connection failed, as Redis said it (`WRONGPASS …`, `NOAUTH …`): ioredis rejects
  // `connect()` with only "Connection is closed." when Redis refuses the password, or its absence.
  let lastError: Error | undefined;
  try {
    redis = new Redis(options.redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 5_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    // Connection errors surface through the policy's log lines; without a listener ioredis prints them.
    redis.on("error", (err: Error) => {
      lastError = err;
    });
    await firstConnection(redis);
  } catch (err) {
    redis?.disconnect();
    throw new Error(`Cannot connect to Redis at SKILLPORT_REDIS_URL: ${whyNotConnected(err, lastError)}`);
  }
  const limiter = new RedisLimiter(redis, options.keyPrefix, options.timeoutMs);
  return new DegradableLimiter(limiter, options.whenDown ?? "local", logger);
}

/**
 * Why the first connection failed: Redis's own refusal when it gave one (a wrong password,
 * none where one is needed), which names the fix, rather than ioredis's "Connection is
 * closed." that followed it. Neither message holds the URL or its password.
 */
function whyNotConnected(err: unknown, lastError: Error | undefined): string {
  const message = err instanceof Error ? err.message : String(err);
  const refusal = lastError?.message;
  if (refusal?.startsWith("NOAUTH")) return `Redis asks for a password and the URL has none (${refusal})`;
  if (refusal?.startsWith("WRONGPASS")) return `Redis refused the URL's user or password (${refusal})`;
  // Only ioredis's bare "Connection is closed." gives way to what came before it: a message
  // of our own (no answer within the deadline, a refused SELECT) already says why.
  if (refusal !== undefined && message === "Connection is closed.") return refusal;
  return message;
}
