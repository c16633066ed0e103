import type { Redis } from "ioredis";
import { withinDeadline } from "../../core/answer-deadline.js";
import type { LimitDecision, Limiter, LimitGrant, LimitWindow } from "../../core/ports.js";
import { ACQUIRE_SCRIPT, RELEASE_SCRIPT } from "./scripts.js";

/** Counters live this long beyond a window's length after their last count, then Redis drops them. */
const KEEP_ENDED_WINDOWS_SECONDS = 3_600;

interface Counter {
  key: string;
  windowSeconds: number;
  /** Unix seconds: the epoch-aligned start of the window. */
  windowStart: number;
  /** The smallest limit among the requested windows of this length. */
  limit: number;
}

type ScriptRedis = Redis & {
  skillportAcquire(...args: (string | number)[]): Promise<number[]>;
  skillportRelease(...args: (string | number)[]): Promise<number>;
};

/**
 * Fixed-window counters in Redis, one key per (bucket, window length, window start), the
 * windows aligned to the Unix epoch (contract.md, "Limits") exactly as in the SQLite
 * limiter, so both give the same answers. `acquire` (and `consume`, an acquire of one) is
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
    const { granted, windows: states } = await this.acquire(bucket, windows, 1, nowMs);
    return { allowed: granted === 1, windows: states };
  }

  async peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    const counters = this.counters(bucket, windows, nowMs);
    const counts =
      counters.length === 0
        ? []
        : (await this.answer(this.redis.mget(counters.map((c) => c.key)))).map((v) => Number(v ?? 0));
    const states = this.states(windows, counters, counts, 0);
    return { allowed: states.every((state) => state.remaining > 0), windows: states };
  }

  async acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant> {
    const counters = this.counters(bucket, windows, nowMs);
    if (counters.length === 0) return { granted: Math.max(0, Math.floor(wanted)), windows: [] };
    const args: (string | number)[] = [
      counters.length,
      ...counters.map((c) => c.key),
      Math.max(0, Math.floor(wanted)),
    ];
    for (const counter of counters) {
      args.push(counter.limit, counter.windowSeconds + KEEP_ENDED_WINDOWS_SECONDS);
    }
    const [granted = 0, ...counts] = (await this.answer(this.redis.skillportAcquire(...args))).map(Number);
    return { granted, windows: this.states(windows, counters, counts, granted) };
  }

  async release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void> {
    if (count <= 0) return;
    const counters = this.counters(bucket, windows, grantedAtMs);
    if (counters.length === 0) return;
    await this.answer(this.redis.skillportRelease(counters.length, ...counters.map((c) => c.key), count));
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

  /** One counter per distinct window length; the hash tag `{bucket}` keeps them in one slot. */
  private counters(bucket: string, windows: LimitWindow[], nowMs: number): Counter[] {
    const nowSeconds = Math.floor(nowMs / 1000);
    const byLength = new Map<number, Counter>();
    for (const window of windows) {
      const existing = byLength.get(window.windowSeconds);
      if (existing) {
        existing.limit = Math.min(existing.limit, window.limit);
        continue;
      }
      const windowStart = Math.floor(nowSeconds / window.windowSeconds) * window.windowSeconds;
      byLength.set(window.windowSeconds, {
        key: `${this.keyPrefix}{${bucket}}:${window.windowSeconds}:${windowStart}`,
        windowSeconds: window.windowSeconds,
        windowStart,
        limit: window.limit,
      });
    }
    return [...byLength.values()];
  }

  /** Each requested window's state, from its counter's count before the grant plus the grant. */
  private states(windows: LimitWindow[], counters: Counter[], counts: number[], granted: number) {
    return windows.map((window) => {
      const index = counters.findIndex((c) => c.windowSeconds === window.windowSeconds);
      const counter = counters[index];
      const used = (counts[index] ?? 0) + granted;
      return {
        limit: window.limit,
        remaining: Math.max(0, window.limit - used),
        resetAtSeconds: (counter?.windowStart ?? 0) + window.windowSeconds,
        windowSeconds: window.windowSeconds,
      };
    });
  }
}
