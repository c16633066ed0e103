import type { UsageCount, UsagePoint, UsageSeriesQuery, UsageStore } from "../../core/ports.js";
import { tableKey } from "./table-key.js";

/** Request counts per key and minute (admitted, limited, refused for a dead key), summed as batches arrive. */
export class InMemoryUsageStore implements UsageStore {
  constructor(private readonly minutes: Map<string, UsageCount>) {}

  async add(counts: UsageCount[]): Promise<void> {
    for (const { keyId, minuteStart, accepted, limited, refused } of counts) {
      const slot = tableKey(keyId, minuteStart);
      const stored = this.minutes.get(slot);
      this.minutes.set(slot, {
        keyId,
        minuteStart,
        accepted: (stored?.accepted ?? 0) + accepted,
        limited: (stored?.limited ?? 0) + limited,
        refused: (stored?.refused ?? 0) + refused,
      });
    }
  }

  /**
   * The minutes of the range summed into buckets aligned to the epoch, oldest first; empty
   * ones absent (sqlite/usage-store.ts: `(minute_start / bucket) * bucket`, `group by`).
   */
  async series({ keyId, fromSeconds, toSeconds, bucketSeconds }: UsageSeriesQuery): Promise<UsagePoint[]> {
    const buckets = new Map<number, UsagePoint>();
    for (const minute of this.minutes.values()) {
      if (keyId !== undefined && minute.keyId !== keyId) continue;
      if (minute.minuteStart < fromSeconds || minute.minuteStart >= toSeconds) continue;
      const start = Math.floor(minute.minuteStart / bucketSeconds) * bucketSeconds;
      const point = buckets.get(start) ?? { start, accepted: 0, limited: 0, refused: 0 };
      point.accepted += minute.accepted;
      point.limited += minute.limited;
      point.refused += minute.refused;
      buckets.set(start, point);
    }
    return [...buckets.values()].sort((a, b) => a.start - b.start);
  }

  async deleteBefore(beforeSeconds: number): Promise<number> {
    let deleted = 0;
    for (const [slot, minute] of this.minutes) {
      if (minute.minuteStart < beforeSeconds) {
        this.minutes.delete(slot);
        deleted++;
      }
    }
    return deleted;
  }
}
