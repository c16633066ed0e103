import { describe, expect, it } from "vitest";
import type { LimitWindow } from "../../../src/core/ports.js";
import { type StoreHandle, T0, uniqueId } from "./fixtures.js";

const MINUTE = 60;
const DAY = 86_400;
const minuteStart = (ms: number) => Math.floor(ms / 60_000) * 60;

/** `Limiter`: fixed epoch-aligned windows, all-or-nothing counting. */
export function describeLimiterContract(handle: StoreHandle): void {
  describe("limiter", () => {
    const consume = (bucket: string, windows: LimitWindow[], nowMs = T0) =>
      handle.store.limiter.consume(bucket, windows, nowMs);

    it("allows exactly N of N + k requests, counting remaining down to zero", async () => {
      const bucket = uniqueId("bucket");
      const windows = [{ limit: 5, windowSeconds: MINUTE }];
      const decisions = [];
      for (let i = 0; i < 8; i++) decisions.push(await consume(bucket, windows));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
      expect(decisions.map((d) => d.windows[0]?.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
    });

    it("counts a refused request in no window", async () => {
      const bucket = uniqueId("bucket");
      const windows = [
        { limit: 2, windowSeconds: MINUTE },
        { limit: 5, windowSeconds: DAY },
      ];
      expect((await consume(bucket, windows)).allowed).toBe(true);
      expect((await consume(bucket, windows)).allowed).toBe(true);
      const refused = await consume(bucket, windows);
      expect(refused.allowed).toBe(false);
      expect(refused.windows.map((w) => w.remaining)).toEqual([0, 3]);
      const nextMinute = await consume(bucket, windows, T0 + 60_000);
      expect(nextMinute.allowed).toBe(true);
      expect(nextMinute.windows.map((w) => w.remaining)).toEqual([1, 2]);
    });

    it("refuses when the longer window is exhausted even if the shorter allows", async () => {
      const bucket = uniqueId("bucket");
      const windows = [
        { limit: 10, windowSeconds: MINUTE },
        { limit: 2, windowSeconds: DAY },
      ];
      await consume(bucket, windows, T0);
      await consume(bucket, windows, T0 + 60_000);
      const refused = await consume(bucket, windows, T0 + 120_000);
      expect(refused.allowed).toBe(false);
      expect(refused.windows.map((w) => w.remaining)).toEqual([10, 0]);
    });

    it("aligns windows to the epoch: the minute ends on the minute, the day at UTC midnight", async () => {
      const decision = await consume(uniqueId("bucket"), [
        { limit: 3, windowSeconds: DAY },
        { limit: 9, windowSeconds: MINUTE },
      ]);
      expect(decision.windows).toEqual([
        { limit: 3, remaining: 2, resetAtSeconds: Date.UTC(2026, 2, 15) / 1000, windowSeconds: DAY },
        { limit: 9, remaining: 8, resetAtSeconds: minuteStart(T0) + 60, windowSeconds: MINUTE },
      ]);
    });

    it("starts a fresh day window at UTC midnight", async () => {
      const bucket = uniqueId("bucket");
      const windows = [{ limit: 1, windowSeconds: DAY }];
      const lastMs = Date.UTC(2026, 2, 14, 23, 59, 59, 999);
      expect((await consume(bucket, windows, lastMs)).allowed).toBe(true);
      expect((await consume(bucket, windows, lastMs)).allowed).toBe(false);
      const fresh = await consume(bucket, windows, lastMs + 1);
      expect(fresh.allowed).toBe(true);
      expect(fresh.windows[0]?.resetAtSeconds).toBe(Date.UTC(2026, 2, 16) / 1000);
    });

    it("keeps buckets apart", async () => {
      const windows = [{ limit: 1, windowSeconds: MINUTE }];
      const first = uniqueId("bucket");
      expect((await consume(first, windows)).allowed).toBe(true);
      expect((await consume(first, windows)).allowed).toBe(false);
      expect((await consume(uniqueId("bucket"), windows)).allowed).toBe(true);
    });

    it("refuses everything under a limit of zero", async () => {
      const decision = await consume(uniqueId("bucket"), [{ limit: 0, windowSeconds: MINUTE }]);
      expect(decision.allowed).toBe(false);
      expect(decision.windows[0]?.remaining).toBe(0);
    });

    it("peeks without counting", async () => {
      const bucket = uniqueId("bucket");
      const windows = [
        { limit: 2, windowSeconds: MINUTE },
        { limit: 5, windowSeconds: DAY },
      ];
      const fresh = await handle.store.limiter.peek(bucket, windows, T0);
      expect(fresh.allowed).toBe(true);
      expect(fresh.windows.map((w) => w.remaining)).toEqual([2, 5]);
      for (let i = 0; i < 5; i++) await handle.store.limiter.peek(bucket, windows, T0);
      await consume(bucket, windows);
      await consume(bucket, windows);
      const full = await handle.store.limiter.peek(bucket, windows, T0);
      expect(full.allowed).toBe(false);
      expect(full.windows.map((w) => w.remaining)).toEqual([0, 3]);
      expect(full.windows[1]?.resetAtSeconds).toBe(Date.UTC(2026, 2, 15) / 1000);
    });

    it("allows exactly the limit when 100 requests arrive at once", async () => {
      const bucket = uniqueId("bucket");
      const windows = [{ limit: 60, windowSeconds: MINUTE }];
      const decisions = await Promise.all(Array.from({ length: 100 }, () => consume(bucket, windows)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    });
  });
}
