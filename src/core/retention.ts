import { type Clock, isoTimestamp } from "./clock.js";
import type { UsageLearning } from "./discovery/usage-learning.js";
import type { Logger } from "./logger.js";
import type { Store } from "./ports.js";

/** Usage is kept at least this many days, so the dashboard's 30-day chart is whole. */
const MIN_USAGE_RETENTION_DAYS = 31;

const PRUNE_INTERVAL_MS = 3_600_000;

export interface RetentionOptions {
  store: Pick<Store, "executions" | "usage">;
  /** Learning from use, which prunes its own notes; undefined when turned off. */
  learning: UsageLearning | undefined;
  clock: Clock;
  logger: Logger;
  /** `SKILLPORT_RETENTION_DAYS`: finished executions are deleted after this many days. */
  retentionDays: number;
}

/**
 * Deletes what is past its retention: finished executions after `retentionDays`, usage
 * counts after as long or `MIN_USAGE_RETENTION_DAYS`, whichever is longer, and learning's
 * stale notes. A failed prune is logged and tried again at the next.
 */
export class Retention {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RetentionOptions) {}

  /** Prunes once, then every hour until `stop`. */
  async start(): Promise<void> {
    await this.prune();
    this.timer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async prune(): Promise<void> {
    const { store, learning, clock, logger, retentionDays } = this.options;
    const now = clock.now();
    const usageDays = Math.max(retentionDays, MIN_USAGE_RETENTION_DAYS);
    await Promise.all([
      store.executions.deleteFinishedBefore(isoTimestamp(now - retentionDays * 86_400_000)),
      store.usage.deleteBefore(Math.floor(now / 1000) - usageDays * 86_400),
      learning?.prune(),
    ]).catch((err: unknown) => logger.error({ err }, "could not prune old records"));
  }
}
