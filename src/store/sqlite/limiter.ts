import type Database from "better-sqlite3";
import type { LimitDecision, Limiter, LimitWindow, WindowState } from "../../core/ports.js";

/** Counter rows are kept this long after their window ended (for usage views), then pruned. */
const KEEP_ENDED_WINDOWS_SECONDS = 86_400;
/** How often (in request time) one process prunes ended windows. */
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Fixed-window counters in `limit_counters`, one row per (bucket, window length, window
 * start). Windows are aligned to the Unix epoch (contract.md, "Limits"): a window starts
 * at floor(now / windowSeconds) * windowSeconds, so the 86 400 s window starts at UTC
 * midnight in every process without any coordination.
 *
 * This runs on its own connection with `synchronous=NORMAL`. The counters need atomicity
 * (one IMMEDIATE transaction per decision) and visibility to other processes (every
 * commit is in the WAL at once), both of which NORMAL keeps; what it gives up is an fsync
 * per commit, so a power cut may forget the last moments of counting. That errs in the
 * client's favour by a few requests, which is not worth an fsync on every request. A
 * process crash loses nothing: the WAL is already written.
 */
export class SqliteLimiter implements Limiter {
  private readonly read: Database.Statement<[string, number, number], { count: number }>;
  private readonly increment: Database.Statement<[string, number, number]>;
  private readonly prune: Database.Statement<[number]>;
  private readonly consumeTransaction: Database.Transaction<
    (bucket: string, windows: LimitWindow[], nowMs: number) => LimitDecision
  >;
  private readonly peekTransaction: Database.Transaction<
    (bucket: string, windows: LimitWindow[], nowMs: number) => LimitDecision
  >;
  private lastPruneMs = Number.NEGATIVE_INFINITY;

  constructor(db: Database.Database) {
    this.read = db.prepare(
      "select count from limit_counters where bucket = ? and window_seconds = ? and window_start = ?",
    );
    this.increment = db.prepare(
      `insert into limit_counters (bucket, window_seconds, window_start, count) values (?, ?, ?, 1)
       on conflict (bucket, window_seconds, window_start) do update set count = count + 1`,
    );
    // Same expression as the index limit_counters_end, so the delete is a range scan.
    this.prune = db.prepare("delete from limit_counters where window_start + window_seconds < ?");
    this.consumeTransaction = db.transaction((bucket, windows, nowMs) =>
      this.decide(bucket, windows, nowMs, true),
    );
    // A read transaction, so all windows are read from one snapshot.
    this.peekTransaction = db.transaction((bucket, windows, nowMs) =>
      this.decide(bucket, windows, nowMs, false),
    );
  }

  /**
   * Reads every window and counts only if all allow it, in one IMMEDIATE transaction: the
   * write lock is taken before the read, so no other process can count in between, and
   * a refused request counts in no window (contract.md: "A request answered 429 does not
   * count").
   */
  async consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    const decision = this.consumeTransaction.immediate(bucket, windows, nowMs);
    this.pruneNowAndThen(nowMs);
    return decision;
  }

  async peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    return this.peekTransaction(bucket, windows, nowMs);
  }

  private decide(bucket: string, windows: LimitWindow[], nowMs: number, count: boolean): LimitDecision {
    const nowSeconds = Math.floor(nowMs / 1000);
    const reads = windows.map((window) => {
      const windowStart = Math.floor(nowSeconds / window.windowSeconds) * window.windowSeconds;
      const used = this.read.get(bucket, window.windowSeconds, windowStart)?.count ?? 0;
      return { window, windowStart, used };
    });
    const allowed = reads.every(({ window, used }) => used < window.limit);
    const counted = allowed && count;
    if (counted) {
      // Two windows of the same length share one counter: count it once.
      const incremented = new Set<number>();
      for (const { window, windowStart } of reads) {
        if (incremented.has(window.windowSeconds)) continue;
        incremented.add(window.windowSeconds);
        this.increment.run(bucket, window.windowSeconds, windowStart);
      }
    }
    return {
      allowed,
      windows: reads.map(
        ({ window, windowStart, used }): WindowState => ({
          limit: window.limit,
          remaining: Math.max(0, window.limit - used - (counted ? 1 : 0)),
          resetAtSeconds: windowStart + window.windowSeconds,
          windowSeconds: window.windowSeconds,
        }),
      ),
    };
  }

  /** Deletes counters of windows that ended over a day ago, about once a minute. */
  private pruneNowAndThen(nowMs: number): void {
    if (nowMs - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = nowMs;
    this.prune.run(Math.floor(nowMs / 1000) - KEEP_ENDED_WINDOWS_SECONDS);
  }
}
