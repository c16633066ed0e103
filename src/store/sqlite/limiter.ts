import {
  acquireOnCounters,
  countersOf,
  oneRequestDecision,
  peekDecision,
  type WindowCounter,
} from "../../core/limits/windows.js";
import type { LimitDecision, Limiter, LimitGrant, LimitWindow } from "../../core/ports.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import type { StoreHealth } from "./store-health.js";

/** Counter rows are kept this long after their window ended (for usage views), then pruned. */
const KEEP_ENDED_WINDOWS_SECONDS = 86_400;
/** How often (in request time) one process prunes ended windows. */
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Fixed-window counters in `limit_counters`, one row per (bucket, window length, window
 * start), the windows aligned to the Unix epoch (`core/limits/windows.ts`).
 *
 * This runs on its own connection with `synchronous=NORMAL`. The counters need atomicity
 * (one IMMEDIATE transaction per grant or give-back) and visibility to other processes (every
 * commit is in the WAL at once), both of which NORMAL keeps; what it gives up is an fsync
 * per commit, so a power cut may forget the last moments of counting. That errs in the
 * client's favour by a few requests, which is not worth an fsync on every request. A
 * process crash loses nothing: the WAL is already written.
 */
export class SqliteLimiter implements Limiter {
  private readonly read: Database.Statement<[string, number, number], { count: number }>;
  private readonly increment: Database.Statement<[string, number, number, number]>;
  private readonly decrement: Database.Statement<[number, string, number, number]>;
  private readonly prune: Database.Statement<[number]>;
  private readonly acquireTransaction: Database.Transaction<
    (bucket: string, windows: LimitWindow[], wanted: number, nowMs: number) => LimitGrant
  >;
  private readonly releaseTransaction: Database.Transaction<
    (bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number) => void
  >;
  private readonly peekTransaction: Database.Transaction<
    (bucket: string, counters: WindowCounter[]) => number[]
  >;
  private lastPruneMs = Number.NEGATIVE_INFINITY;

  /** @param health told how each grant and give-back went (for readiness); none in memory. */
  constructor(
    db: Database.Database,
    private readonly health?: StoreHealth,
  ) {
    this.read = db.prepare(
      "select count from limit_counters where bucket = ? and window_seconds = ? and window_start = ?",
    );
    this.increment = db.prepare(
      `insert into limit_counters (bucket, window_seconds, window_start, count) values (?, ?, ?, ?)
       on conflict (bucket, window_seconds, window_start) do update set count = count + excluded.count`,
    );
    this.decrement = db.prepare(
      `update limit_counters set count = max(0, count - ?)
       where bucket = ? and window_seconds = ? and window_start = ?`,
    );
    // Same expression as the index limit_counters_end, so the delete is a range scan.
    this.prune = db.prepare("delete from limit_counters where window_start + window_seconds < ?");
    this.acquireTransaction = db.transaction((bucket, windows, wanted, nowMs) =>
      this.grant(bucket, windows, wanted, nowMs),
    );
    this.releaseTransaction = db.transaction((bucket, windows, count, grantedAtMs) => {
      for (const { windowSeconds, windowStart } of countersOf(windows, grantedAtMs)) {
        this.decrement.run(count, bucket, windowSeconds, windowStart);
      }
    });
    // A read transaction, so all counters are read from one snapshot.
    this.peekTransaction = db.transaction((bucket, counters) => this.countsOf(bucket, counters));
  }

  /** `acquire` of one request (contract.md: "A request answered 429 does not count"). */
  async consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    return oneRequestDecision(await this.acquire(bucket, windows, 1, nowMs));
  }

  async peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    const counters = countersOf(windows, nowMs);
    return peekDecision(windows, counters, this.peekTransaction(bucket, counters));
  }

  /**
   * Reads every window and counts the grant in each, in one IMMEDIATE transaction: the
   * write lock is taken before the read, so no other process can count in between, and
   * the grant never takes any window past its limit (a refused request, granted 0,
   * counts in no window).
   */
  async acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant> {
    const grant = this.tracked(() => this.acquireTransaction.immediate(bucket, windows, wanted, nowMs));
    this.pruneNowAndThen(nowMs);
    return grant;
  }

  async release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void> {
    if (count > 0) this.tracked(() => this.releaseTransaction.immediate(bucket, windows, count, grantedAtMs));
  }

  private tracked<T>(write: () => T): T {
    return this.health ? this.health.track(write) : write();
  }

  private grant(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): LimitGrant {
    return acquireOnCounters(windows, wanted, nowMs, {
      countsOf: (counters) => this.countsOf(bucket, counters),
      add: ({ windowSeconds, windowStart }, _count, granted) => {
        this.increment.run(bucket, windowSeconds, windowStart, granted);
      },
    });
  }

  private countsOf(bucket: string, counters: readonly WindowCounter[]): number[] {
    return counters.map(
      ({ windowSeconds, windowStart }) => this.read.get(bucket, windowSeconds, windowStart)?.count ?? 0,
    );
  }

  /** Deletes counters of windows that ended over a day ago, about once a minute. */
  private pruneNowAndThen(nowMs: number): void {
    if (nowMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = nowMs;
    this.prune.run(Math.floor(nowMs / 1000) - KEEP_ENDED_WINDOWS_SECONDS);
  }
}
