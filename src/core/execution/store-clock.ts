// The clock heartbeats are written and judged by: the store's, where processes on several
// machines share it (by its own clock, a replica whose clock ran 120 s fast judged a
// healthy peer on another host gone, 30 s after it started, and ended that peer's running
// execution `execution_interrupted`).

import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { RunnerQueue } from "../ports.js";

/**
 * How far this process's clock may be from the store's before it is logged. Liveness does
 * not mind (it follows the store's clock), but what still reads this clock does: the
 * windows of the rate limits (a key gets up to a window more across a window boundary) and
 * the times written in execution records.
 */
export const SKEW_WARN_MS = 2_000;

/**
 * This process's clock moved onto the store's by their measured difference, refreshed by
 * `sync` (each heartbeat: one tiny query). Stores without a clock of their own (SQLite,
 * shared on one machine) leave it this process's clock.
 */
export class StoreClock implements Clock {
  private offsetMs = 0;
  /** Whether the last measurement was past `SKEW_WARN_MS` (undefined before the first). */
  private skewed: boolean | undefined;

  constructor(
    private readonly local: Clock,
    private readonly queue: Pick<RunnerQueue, "sharedClockMs">,
    private readonly logger: Logger,
  ) {}

  now(): number {
    return this.local.now() + this.offsetMs;
  }

  /** Measures the store's clock against this one (the query's midpoint), and logs a skew as it starts and ends. */
  async sync(): Promise<void> {
    const sentMs = this.local.now();
    const storeMs = await this.queue.sharedClockMs();
    if (storeMs === undefined) return;
    const answeredMs = this.local.now();
    // Whole milliseconds: heartbeats are stored as integers (a bigint in PostgreSQL).
    this.offsetMs = Math.round(storeMs - (sentMs + answeredMs) / 2);
    this.reportSkew();
  }

  private reportSkew(): void {
    const skewed = Math.abs(this.offsetMs) > SKEW_WARN_MS;
    if (skewed === this.skewed || (!skewed && this.skewed === undefined)) {
      this.skewed = skewed;
      return;
    }
    this.skewed = skewed;
    const seconds = Math.round(Math.abs(this.offsetMs) / 100) / 10;
    const fields = { clock_skew_ms: Math.round(-this.offsetMs) };
    if (skewed) {
      this.logger.warn(
        fields,
        `this process's clock is ${seconds} s ${this.offsetMs < 0 ? "ahead of" : "behind"} the store's: ` +
          "rate-limit windows and the times in execution records follow this clock, so replicas count a key's limits " +
          "in different windows and records carry skewed times (liveness follows the store's clock); synchronise the clocks (NTP)",
      );
    } else {
      this.logger.info(fields, "this process's clock agrees with the store's again");
    }
  }
}
