import type { Redis } from "ioredis";

/**
 * How long start-up waits for Redis's first answers, as it waits for PostgreSQL's first
 * connection (`CONNECT_TIMEOUT_MS` there). ioredis's `connectTimeout` bounds only the TCP
 * connect: a Redis that accepts and never answers (frozen, half-open, another service on
 * the port) would hold `serve` at start-up for ever, its port unbound and nothing
 * logged.
 */
const FIRST_ANSWER_DEADLINE_MS = 5_000;

/**
 * Connects `redis` (created with `lazyConnect`) and checks that it counts in the database
 * the URL names; throws, saying why, when Redis does not answer within `deadlineMs` or
 * refuses that database. The caller disconnects on failure.
 */
export async function firstConnection(redis: Redis, deadlineMs = FIRST_ANSWER_DEADLINE_MS): Promise<void> {
  await answeredWithin(redis.connect(), deadlineMs);
  await answeredWithin(selectTheUrlsDatabase(redis), deadlineMs);
}

/**
 * ioredis sends the URL's `SELECT` as it connects, but a refused one (`/99` where Redis has
 * 16 databases) only raises an `error` event and the connection carries on in database 0,
 * sharing its counters with whatever counts there. Selecting again
 * here turns the refusal into a failed start.
 */
async function selectTheUrlsDatabase(redis: Redis): Promise<void> {
  const db = redis.options.db ?? 0;
  if (db === 0) return;
  try {
    await redis.select(db);
  } catch (err) {
    throw new Error(`Redis refused SELECT ${db} (the database in the URL): ${(err as Error).message}`);
  }
}

async function answeredWithin<T>(answer: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs / 1000} s`)), deadlineMs);
  });
  // The caller disconnects after a timeout, which rejects `answer` too: that is expected.
  answer.catch(() => {});
  try {
    return await Promise.race([answer, expired]);
  } finally {
    clearTimeout(timer);
  }
}
