import type { Logger } from "../logger.js";
import type { UsageCount, UsageStore } from "../ports.js";

/** What became of a request made with an existing key, as the usage charts count it. */
export type UsageOutcome = "accepted" | "limited" | "refused";

/**
 * Counts requests per key and minute in memory and writes them to the store in one batch
 * per flush, so counting costs a request a map update and never a store write (the issue:
 * "counting must not slow the request path"). Flushes run one at a time; a batch the store
 * refuses is put back and retried with the next one, so no count is lost to a hiccup.
 */
export class UsageRecorder {
  /** Each key's count for the latest minute it was seen in (one lookup per request, no string built). */
  private current = new Map<string, UsageCount>();
  /** Counts of minutes a key has moved on from, waiting for the next flush. */
  private finished: UsageCount[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: UsageStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Counts one request of `keyId` at `nowMs`: admitted, refused with 429 (`limited`), or
   * refused because the key is revoked or expired (`refused`). Only ever called for a key
   * that exists, so the map holds at most one count per key.
   */
  record(keyId: string, outcome: UsageOutcome, nowMs: number): void {
    const minuteStart = Math.floor(nowMs / 60_000) * 60;
    let count = this.current.get(keyId);
    if (count?.minuteStart !== minuteStart) {
      // A request stamped in another minute (normally the next one) starts a new count; two
      // counts of one key and minute in a batch are summed by the store.
      if (count) this.finished.push(count);
      count = { keyId, minuteStart, accepted: 0, limited: 0, refused: 0 };
      this.current.set(keyId, count);
    }
    count[outcome]++;
  }

  /**
   * Writes everything counted so far; resolves once it is stored (or, when the store failed,
   * put back for the next flush). A reader that flushes first sees every count of this process.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  /** Flushes every `everyMs` until `stop`; the timer never keeps the process alive. */
  start(everyMs: number): void {
    this.timer ??= setInterval(() => void this.flush(), everyMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async writeBatch(): Promise<void> {
    if (this.current.size === 0 && this.finished.length === 0) return;
    const batch = [...this.finished, ...this.current.values()];
    this.current = new Map();
    this.finished = [];
    try {
      await this.store.add(batch);
    } catch (err) {
      this.logger.warn(
        { err, counts: batch.length },
        "could not store usage counts; retrying with the next flush",
      );
      this.finished.unshift(...batch);
    }
  }
}
