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

    it("counts two windows of one length once, in one counter held to the smaller limit", async () => {
      const bucket = uniqueId("bucket");
      const windows = [
        { limit: 3, windowSeconds: MINUTE },
        { limit: 2, windowSeconds: MINUTE },
      ];
      expect((await consume(bucket, windows)).windows.map((w) => w.remaining)).toEqual([2, 1]);
      expect((await consume(bucket, windows)).windows.map((w) => w.remaining)).toEqual([1, 0]);
      expect((await consume(bucket, windows)).allowed).toBe(false);
      const peeked = await handle.store.limiter.peek(bucket, windows, T0);
      expect(peeked.allowed).toBe(false);
      expect(peeked.windows.map((w) => w.remaining)).toEqual([1, 0]);
      // Given back once to the one counter, not once per window.
      await handle.store.limiter.release(bucket, windows, 1, T0);
      expect((await handle.store.limiter.peek(bucket, windows, T0)).windows.map((w) => w.remaining)).toEqual([
        2, 1,
      ]);
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

    describe("leases (acquire and release)", () => {
      const limiter = () => handle.store.limiter;
      const remaining = async (bucket: string, windows: LimitWindow[], nowMs = T0) =>
        (await limiter().peek(bucket, windows, nowMs)).windows.map((w) => w.remaining);

      it("grants what is wanted while the window allows it, and only what is left at the edge", async () => {
        const bucket = uniqueId("bucket");
        const windows = [{ limit: 10, windowSeconds: MINUTE }];
        const first = await limiter().acquire(bucket, windows, 4, T0);
        expect(first.granted).toBe(4);
        expect(first.windows).toEqual([
          { limit: 10, remaining: 6, resetAtSeconds: minuteStart(T0) + 60, windowSeconds: MINUTE },
        ]);
        const edge = await limiter().acquire(bucket, windows, 8, T0);
        expect(edge.granted).toBe(6);
        expect(edge.windows[0]?.remaining).toBe(0);
      });

      it("grants 0 when a window is exhausted and counts nothing", async () => {
        const bucket = uniqueId("bucket");
        const windows = [
          { limit: 3, windowSeconds: MINUTE },
          { limit: 10, windowSeconds: DAY },
        ];
        expect((await limiter().acquire(bucket, windows, 3, T0)).granted).toBe(3);
        const refused = await limiter().acquire(bucket, windows, 5, T0);
        expect(refused.granted).toBe(0);
        expect(refused.windows.map((w) => w.remaining)).toEqual([0, 7]);
        expect(await remaining(bucket, windows, T0 + 60_000)).toEqual([3, 7]);
      });

      it("bounds a grant by the tighter window and counts it in every window", async () => {
        const bucket = uniqueId("bucket");
        const windows = [
          { limit: 100, windowSeconds: MINUTE },
          { limit: 5, windowSeconds: DAY },
        ];
        const grant = await limiter().acquire(bucket, windows, 20, T0);
        expect(grant.granted).toBe(5);
        expect(grant.windows.map((w) => w.remaining)).toEqual([95, 0]);
        expect((await limiter().acquire(bucket, windows, 1, T0 + 60_000)).granted).toBe(0);
      });

      it("is what consume does for one request", async () => {
        const bucket = uniqueId("bucket");
        const windows = [{ limit: 2, windowSeconds: MINUTE }];
        await limiter().acquire(bucket, windows, 1, T0);
        expect((await consume(bucket, windows)).windows[0]?.remaining).toBe(0);
        expect((await consume(bucket, windows)).allowed).toBe(false);
      });

      it("release gives unused requests back to every window, never below zero", async () => {
        const bucket = uniqueId("bucket");
        const windows = [
          { limit: 10, windowSeconds: MINUTE },
          { limit: 50, windowSeconds: DAY },
        ];
        await limiter().acquire(bucket, windows, 10, T0);
        await limiter().release(bucket, windows, 4, T0);
        expect(await remaining(bucket, windows)).toEqual([4, 44]);
        expect((await limiter().acquire(bucket, windows, 10, T0)).granted).toBe(4);
        await limiter().release(bucket, windows, 100, T0);
        expect(await remaining(bucket, windows)).toEqual([10, 50]);
        await limiter().release(uniqueId("bucket"), windows, 3, T0);
      });

      it("release after the window rolled over leaves the new window alone", async () => {
        const bucket = uniqueId("bucket");
        const windows = [
          { limit: 10, windowSeconds: MINUTE },
          { limit: 50, windowSeconds: DAY },
        ];
        await limiter().acquire(bucket, windows, 6, T0);
        const nextMinute = T0 + 60_000;
        await limiter().acquire(bucket, windows, 3, nextMinute);
        // The lease of the old minute is given back late: the new minute keeps its count,
        // the day (still the same one) gets the unused requests back.
        await limiter().release(bucket, windows, 6, T0);
        expect(await remaining(bucket, windows, nextMinute)).toEqual([7, 47]);
      });
    });
  });
}
