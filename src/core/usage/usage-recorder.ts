import type { Logger } from "../logger.js";
import type { UsageCount, UsageStore } from "../ports.js";

/**
 * Counts requests per key and minute in memory and writes them to the store in one batch
 * per flush, so counting costs a request a map update and never a store write (the issue:
 * "counting must not slow the request path"). Flushes run one at a time; a batch the store
 * refuses is merged back and retried with the next one, so no count is lost to a hiccup.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageCount>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: UsageStore,
    private readonly logger: Logger,
  ) {}

  /** Counts one request of `keyId` at `nowMs`: admitted, or refused with 429 (`limited`). */
  record(keyId: string, outcome: "accepted" | "limited", nowMs: number): void {
    const minuteStart = Math.floor(nowMs / 60_000) * 60;
    const slot = `${keyId} ${minuteStart}`;
    let count = this.pending.get(slot);
    if (!count) {
      count = { keyId, minuteStart, accepted: 0, limited: 0 };
      this.pending.set(slot, count);
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
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.add([...batch.values()]);
    } catch (err) {
      this.logger.warn(
        { err, counts: batch.size },
        "could not store usage counts; retrying with the next flush",
      );
      for (const [slot, count] of batch) {
        const later = this.pending.get(slot);
        if (later) {
          later.accepted += count.accepted;
          later.limited += count.limited;
        } else {
          this.pending.set(slot, count);
        }
      }
    }
  }
}
