import { describe, expect, it } from "vitest";
import type { StoreHandle } from "./fixtures.js";

/** A minute in the middle of a UTC day (Unix seconds, a multiple of 3600 + 26 minutes). */
const M0 = Date.UTC(2026, 2, 14, 9, 26) / 1000;
const HOUR0 = M0 - 26 * 60;
const DAY0 = Date.UTC(2026, 2, 14) / 1000;

/** `UsageStore`: batches of per-minute counts, summed, and series of any bucket length. */
export function describeUsageContract(handle: StoreHandle): void {
  describe("usage", () => {
    const minuteSeries = (keyId?: string) =>
      handle.store.usage.series({ keyId, fromSeconds: M0 - 3600, toSeconds: M0 + 3600, bucketSeconds: 60 });

    it("adds a batch to the stored counts of the same key and minute", async () => {
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: M0, accepted: 3, limited: 1, refused: 0 },
        { keyId: "key_a", minuteStart: M0 + 60, accepted: 2, limited: 0, refused: 0 },
      ]);
      // Two counts of one key and minute in one batch add up too.
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: M0, accepted: 4, limited: 2, refused: 0 },
        { keyId: "key_a", minuteStart: M0, accepted: 1, limited: 0, refused: 0 },
      ]);
      expect(await minuteSeries("key_a")).toEqual([
        { start: M0, accepted: 8, limited: 3, refused: 0 },
        { start: M0 + 60, accepted: 2, limited: 0, refused: 0 },
      ]);
    });

    it("answers one key's series, or every key summed", async () => {
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: M0, accepted: 3, limited: 1, refused: 0 },
        { keyId: "key_b", minuteStart: M0, accepted: 5, limited: 0, refused: 0 },
        { keyId: "key_b", minuteStart: M0 - 120, accepted: 1, limited: 1, refused: 0 },
      ]);
      expect(await minuteSeries("key_b")).toEqual([
        { start: M0 - 120, accepted: 1, limited: 1, refused: 0 },
        { start: M0, accepted: 5, limited: 0, refused: 0 },
      ]);
      expect(await minuteSeries()).toEqual([
        { start: M0 - 120, accepted: 1, limited: 1, refused: 0 },
        { start: M0, accepted: 8, limited: 1, refused: 0 },
      ]);
      expect(await minuteSeries("key_unknown")).toEqual([]);
    });

    it("sums minutes into hour and day buckets aligned to the epoch, within the range", async () => {
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: HOUR0, accepted: 1, limited: 0, refused: 0 },
        { keyId: "key_a", minuteStart: HOUR0 + 59 * 60, accepted: 2, limited: 1, refused: 0 },
        { keyId: "key_a", minuteStart: HOUR0 + 3600, accepted: 4, limited: 0, refused: 0 },
        { keyId: "key_a", minuteStart: DAY0 - 60, accepted: 8, limited: 0, refused: 0 },
      ]);
      const hours = await handle.store.usage.series({
        keyId: "key_a",
        fromSeconds: DAY0,
        toSeconds: DAY0 + 86_400,
        bucketSeconds: 3600,
      });
      expect(hours).toEqual([
        { start: HOUR0, accepted: 3, limited: 1, refused: 0 },
        { start: HOUR0 + 3600, accepted: 4, limited: 0, refused: 0 },
      ]);
      const days = await handle.store.usage.series({
        fromSeconds: DAY0 - 86_400,
        toSeconds: DAY0 + 86_400,
        bucketSeconds: 86_400,
      });
      expect(days).toEqual([
        { start: DAY0 - 86_400, accepted: 8, limited: 0, refused: 0 },
        { start: DAY0, accepted: 7, limited: 1, refused: 0 },
      ]);
    });

    // Requests with a revoked or expired key (audit 26, dashboard #2): a third count.
    it("sums requests refused for a dead key as a third count, per minute and in longer buckets", async () => {
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: M0, accepted: 0, limited: 0, refused: 3 },
        { keyId: "key_a", minuteStart: M0 + 60, accepted: 1, limited: 0, refused: 2 },
        { keyId: "key_b", minuteStart: M0, accepted: 2, limited: 1, refused: 0 },
      ]);
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: M0, accepted: 0, limited: 0, refused: 4 },
        { keyId: "key_a", minuteStart: M0, accepted: 0, limited: 0, refused: 1 },
      ]);
      expect(await minuteSeries("key_a")).toEqual([
        { start: M0, accepted: 0, limited: 0, refused: 8 },
        { start: M0 + 60, accepted: 1, limited: 0, refused: 2 },
      ]);
      expect(await minuteSeries()).toEqual([
        { start: M0, accepted: 2, limited: 1, refused: 8 },
        { start: M0 + 60, accepted: 1, limited: 0, refused: 2 },
      ]);
      const hours = await handle.store.usage.series({
        keyId: "key_a",
        fromSeconds: HOUR0,
        toSeconds: HOUR0 + 3600,
        bucketSeconds: 3600,
      });
      expect(hours).toEqual([{ start: HOUR0, accepted: 1, limited: 0, refused: 10 }]);
    });

    it("deletes minutes before a time and keeps the rest", async () => {
      await handle.store.usage.add([
        { keyId: "key_a", minuteStart: M0 - 60, accepted: 1, limited: 0, refused: 0 },
        { keyId: "key_a", minuteStart: M0, accepted: 2, limited: 0, refused: 0 },
      ]);
      expect(await handle.store.usage.deleteBefore(M0)).toBe(1);
      expect(await minuteSeries("key_a")).toEqual([{ start: M0, accepted: 2, limited: 0, refused: 0 }]);
    });

    it("accepts an empty batch", async () => {
      await handle.store.usage.add([]);
      expect(await minuteSeries()).toEqual([]);
    });
  });
}
