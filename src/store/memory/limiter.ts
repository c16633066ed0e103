import {
  acquireOnCounters,
  countersOf,
  oneRequestDecision,
  peekDecision,
  type WindowCounter,
} from "../../core/limits/windows.js";
import type { LimitDecision, Limiter, LimitGrant, LimitWindow } from "../../core/ports.js";
import { tableKey } from "./table-key.js";

/**
 * Fixed-window counters, one per (bucket, window length, window start), the windows
 * aligned to the Unix epoch (`core/limits/windows.ts`), as `SqliteLimiter` and
 * `RedisLimiter` count them. A counter of a window that has ended is kept: it limits
 * nothing any more, and a late give-back still lands on it (see `release`).
 */
export class InMemoryLimiter implements Limiter {
  constructor(private readonly counts: Map<string, number>) {}

  /** `acquire` of one request (contract.md: "A request answered 429 does not count"). */
  async consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    return oneRequestDecision(await this.acquire(bucket, windows, 1, nowMs));
  }

  async peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    const counters = countersOf(windows, nowMs);
    return peekDecision(windows, counters, this.countsOf(bucket, counters));
  }

  async acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant> {
    return acquireOnCounters(windows, wanted, nowMs, {
      countsOf: (counters) => this.countsOf(bucket, counters),
      add: (counter, count, granted) => this.counts.set(counterKey(bucket, counter), count + granted),
    });
  }

  /**
   * Lowers the counters of the windows that contained `grantedAtMs`, never below 0: those
   * the grant was counted in. A window that has rolled over since gets nothing back, its
   * successor having never counted these requests.
   */
  async release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void> {
    if (count <= 0) return;
    for (const counter of countersOf(windows, grantedAtMs)) {
      const key = counterKey(bucket, counter);
      const current = this.counts.get(key);
      if (current !== undefined) this.counts.set(key, Math.max(0, current - count));
    }
  }

  private countsOf(bucket: string, counters: readonly WindowCounter[]): number[] {
    return counters.map((counter) => this.counts.get(counterKey(bucket, counter)) ?? 0);
  }
}

function counterKey(bucket: string, { windowSeconds, windowStart }: WindowCounter): string {
  return tableKey(bucket, windowSeconds, windowStart);
}
