import type { Clock } from "../clock.js";
import type { UsagePoint, UsageStore } from "../ports.js";
import type { UsageRecorder } from "./usage-recorder.js";

/** The spans the dashboard charts: per minute over an hour, per hour over a day, per day over 30 days. */
export const USAGE_RANGES = {
  hour: { bucketSeconds: 60, buckets: 60 },
  day: { bucketSeconds: 3600, buckets: 24 },
  month: { bucketSeconds: 86_400, buckets: 30 },
} as const;
export type UsageRange = keyof typeof USAGE_RANGES;

export interface UsageSeries {
  range: UsageRange;
  bucketSeconds: number;
  /** Every bucket of the range, oldest first, the current one last; empty ones are zeros. */
  points: UsagePoint[];
  totals: { accepted: number; limited: number; refused: number };
}

/** Request counts over time, per key or for every key, as the dashboard's usage charts show them. */
export class UsageService {
  constructor(
    private readonly store: UsageStore,
    private readonly recorder: UsageRecorder,
    private readonly clock: Clock,
  ) {}

  /**
   * The series of `range` ending with the current bucket. This process's counts are flushed
   * first, so its own requests are all in it; other processes' appear after their next flush.
   */
  async series(range: UsageRange, keyId?: string): Promise<UsageSeries> {
    const { bucketSeconds, buckets } = USAGE_RANGES[range];
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const currentStart = Math.floor(nowSeconds / bucketSeconds) * bucketSeconds;
    const fromSeconds = currentStart - (buckets - 1) * bucketSeconds;
    await this.recorder.flush();
    const stored = await this.store.series({
      keyId,
      fromSeconds,
      toSeconds: currentStart + bucketSeconds,
      bucketSeconds,
    });
    const byStart = new Map(stored.map((point) => [point.start, point]));
    const points: UsagePoint[] = [];
    const totals = { accepted: 0, limited: 0, refused: 0 };
    for (let i = 0; i < buckets; i++) {
      const start = fromSeconds + i * bucketSeconds;
      const point = byStart.get(start) ?? { start, accepted: 0, limited: 0, refused: 0 };
      points.push(point);
      totals.accepted += point.accepted;
      totals.limited += point.limited;
      totals.refused += point.refused;
    }
    return { range, bucketSeconds, points, totals };
  }
}
