import type { Redis } from "ioredis";
import { withinDeadline } from "../../core/answer-deadline.js";
import {
  countersOf,
  oneRequestDecision,
  peekDecision,
  type WindowCounter,
  windowStates,
} from "../../core/limits/windows.js";
import type { LimitDecision, Limiter, LimitGrant, LimitWindow } from "../../core/ports.js";
import { ACQUIRE_SCRIPT, RELEASE_SCRIPT } from "./scripts.js";

/** Counters live this long beyond a window's length after their last count, then Redis drops them. */
const KEEP_ENDED_WINDOWS_SECONDS = 3_600;

type ScriptRedis = Redis & {
  skillportAcquire(...args: (string | number)[]): Promise<number[]>;
  skillportRelease(...args: (string | number)[]): Promise<number>;
};

/**
 * Fixed-window counters in Redis, one key per (bucket, window length, window start), the
 * windows those of the SQLite limiter (`core/limits/windows.ts`), so both give the same answers. `acquire` (and `consume`, an acquire of one) is
 * ONE script call: every window is checked and counted atomically, on one server, for
 * every replica: exact under any concurrency. `peek` is one MGET.
 *
 * A call that Redis does not answer within `deadlineMs` fails (the degradation policy then
 * answers it, and answers the calls after it without asking Redis until Redis is back).
 */
export class RedisLimiter implements Limiter {
  private readonly redis: ScriptRedis;

  constructor(
    redis: Redis,
    /** Prefixes every key (deployments or tests sharing one Redis stay apart). */
    private readonly keyPrefix = "skillport:",
    private readonly deadlineMs = 1_000,
  ) {
    redis.defineCommand("skillportAcquire", { lua: ACQUIRE_SCRIPT });
    redis.defineCommand("skillportRelease", { lua: RELEASE_SCRIPT });
    this.redis = redis as ScriptRedis;
  }

  async consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    return oneRequestDecision(await this.acquire(bucket, windows, 1, nowMs));
  }

  async peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    const counters = countersOf(windows, nowMs);
    const counts =
      counters.length === 0
        ? []
        : (await this.answer(this.redis.mget(this.keysOf(bucket, counters)))).map((v) => Number(v ?? 0));
    return peekDecision(windows, counters, counts);
  }

  async acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant> {
    const counters = countersOf(windows, nowMs);
    if (counters.length === 0) return { granted: Math.max(0, Math.floor(wanted)), windows: [] };
    const args: (string | number)[] = [
      counters.length,
      ...this.keysOf(bucket, counters),
      Math.max(0, Math.floor(wanted)),
    ];
    for (const counter of counters) {
      args.push(counter.limit, counter.windowSeconds + KEEP_ENDED_WINDOWS_SECONDS);
    }
    const [granted = 0, ...counts] = (await this.answer(this.redis.skillportAcquire(...args))).map(Number);
    return { granted, windows: windowStates(windows, counters, counts, granted) };
  }

  async release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void> {
    if (count <= 0) return;
    const counters = countersOf(windows, grantedAtMs);
    if (counters.length === 0) return;
    await this.answer(this.redis.skillportRelease(counters.length, ...this.keysOf(bucket, counters), count));
  }

  /** Resolves once Redis answers a PING within the deadline (the circuit breaker's probe). */
  async ping(): Promise<void> {
    await this.answer(this.redis.ping());
  }

  /** Closes the connection: politely (QUIT) if Redis answers within the deadline, else at once. */
  async close(): Promise<void> {
    await this.answer(this.redis.quit()).catch(() => this.redis.disconnect());
  }

  private answer<T>(call: Promise<T>): Promise<T> {
    return withinDeadline(call, this.deadlineMs, "Redis");
  }

  /** The counters' keys; the hash tag `{bucket}` keeps a bucket's counters in one slot. */
  private keysOf(bucket: string, counters: WindowCounter[]): string[] {
    return counters.map(
      ({ windowSeconds, windowStart }) => `${this.keyPrefix}{${bucket}}:${windowSeconds}:${windowStart}`,
    );
  }
}
