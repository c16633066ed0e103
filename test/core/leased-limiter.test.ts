import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { LeasedLimiter } from "../../src/core/limits/leased-limiter.js";
import type { LimitDecision, Limiter, LimitWindow, Store } from "../../src/core/ports.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";

const MINUTE = 60;
const DAY = 86_400;
const FREE: LimitWindow[] = [
  { limit: 60, windowSeconds: MINUTE },
  { limit: 1000, windowSeconds: DAY },
];
const PRO: LimitWindow[] = [
  { limit: 600, windowSeconds: MINUTE },
  { limit: 50_000, windowSeconds: DAY },
];
const HUGE: LimitWindow[] = [
  { limit: 1_000_000, windowSeconds: MINUTE },
  { limit: 1_000_000_000, windowSeconds: DAY },
];
/** Mid-minute, far from any window edge. */
const T0 = Date.UTC(2026, 10, 22, 12, 0, 30);

/** The store's limiter, counting the calls that reach it and the acquires in flight at once. */
class CountingLimiter implements Limiter {
  acquires = 0;
  releases = 0;
  peeks = 0;
  inFlight = 0;
  maxInFlight = 0;
  constructor(private readonly inner: Limiter) {}
  consume(bucket: string, windows: LimitWindow[], nowMs: number) {
    return this.inner.consume(bucket, windows, nowMs);
  }
  peek(bucket: string, windows: LimitWindow[], nowMs: number) {
    this.peeks++;
    return this.inner.peek(bucket, windows, nowMs);
  }
  async acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number) {
    this.acquires++;
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      // A turn of the event loop, as a networked store would take: overlapping acquires would show.
      await new Promise((resolve) => setImmediate(resolve));
      return await this.inner.acquire(bucket, windows, wanted, nowMs);
    } finally {
      this.inFlight--;
    }
  }
  release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number) {
    this.releases++;
    return this.inner.release(bucket, windows, count, grantedAtMs);
  }
}

describe("LeasedLimiter", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const dataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "skillport-lease-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };

  /** One "process": a store on `dir` and a LeasedLimiter over its counted limiter. */
  const open = async (options: { dir?: string; clock?: ManualClock } = {}) => {
    const dir = options.dir ?? (await dataDir());
    const clock = options.clock ?? new ManualClock(T0);
    const store: Store = openSqliteStore({ dataDir: dir, clock });
    const counting = new CountingLimiter(store.limiter);
    // The sweep timer is kept out of the way: tests call releaseIdle() when they mean it.
    const limiter = new LeasedLimiter(counting, clock, { sweepEveryMs: 3_600_000 });
    cleanups.push(async () => {
      await limiter.close();
      await store.close();
    });
    return { dir, clock, store, counting, limiter };
  };

  const consumeMany = async (limiter: Limiter, windows: LimitWindow[], n: number, nowMs: number) => {
    const decisions: LimitDecision[] = [];
    for (let i = 0; i < n; i++) decisions.push(await limiter.consume("key:k", windows, nowMs));
    return decisions;
  };
  /** `n` requests in concurrent bursts of `burst` (each burst one Promise.all). */
  const consumeBursts = async (
    limiter: Limiter,
    windows: LimitWindow[],
    n: number,
    nowMs: number,
    burst = 100,
  ) => {
    const decisions: LimitDecision[] = [];
    for (let sent = 0; sent < n; sent += burst) {
      const size = Math.min(burst, n - sent);
      const batch = Array.from({ length: size }, () => limiter.consume("key:k", windows, nowMs));
      decisions.push(...(await Promise.all(batch)));
    }
    return decisions;
  };
  const allowed = (decisions: LimitDecision[]) => decisions.filter((d) => d.allowed).length;
  const remaining = (decisions: LimitDecision[], window = 0) =>
    decisions.filter((d) => d.allowed).map((d) => d.windows[window]?.remaining);
  const storeRemaining = async (store: Store, windows: LimitWindow[], nowMs: number) =>
    (await store.limiter.peek("key:k", windows, nowMs)).windows.map((w) => w.remaining);

  describe("in one process", () => {
    it("takes a count given back into its lease, where peek sees it at once, and to the store in the end", async () => {
      const { limiter, store, counting } = await open();
      await consumeMany(limiter, PRO, 45, T0);
      const peeksBefore = counting.peeks;
      expect((await limiter.consume("key:k", PRO, T0)).windows[0]?.remaining).toBe(554);
      await limiter.release("key:k", PRO, 1, T0);
      expect((await limiter.peek("key:k", PRO, T0)).windows[0]?.remaining).toBe(555);
      expect(counting.peeks).toBe(peeksBefore); // answered from the live lease
      await limiter.close();
      expect(await storeRemaining(store, PRO, T0)).toEqual([555, 50_000 - 45]);
    });

    it.each([
      ["free", FREE, 60],
      ["pro", PRO, 600],
    ])(
      "admits exactly the limit of a %s key, remaining falling by one per request",
      async (_, windows, limit) => {
        const { limiter, store } = await open();
        const decisions = await consumeMany(limiter, windows, limit + 25, T0);
        expect(allowed(decisions)).toBe(limit);
        expect(remaining(decisions)).toEqual(Array.from({ length: limit }, (_, i) => limit - 1 - i));
        expect(decisions.slice(limit).every((d) => !d.allowed && d.windows[0]?.remaining === 0)).toBe(true);
        expect(await storeRemaining(store, windows, T0)).toEqual([0, (windows[1]?.limit ?? 0) - limit]);
      },
    );

    it.each([
      ["free", FREE, 60],
      ["pro", PRO, 600],
    ])(
      "admits exactly the limit of a %s key under concurrent bursts, each remaining once",
      async (_, windows, limit) => {
        const { limiter } = await open();
        const decisions = await consumeBursts(limiter, windows, limit + 150, T0, 100);
        expect(allowed(decisions)).toBe(limit);
        expect(remaining(decisions).sort((a = 0, b = 0) => a - b)).toEqual(
          Array.from({ length: limit }, (_, i) => i),
        );
      },
    );

    it("admits exactly a million a minute of an enterprise key, one by one and in bursts", async () => {
      const { limiter, counting, clock } = await open();
      const limit = 1_000_000;
      const oneByOne = await consumeMany(limiter, HUGE, limit + 10, T0);
      expect(allowed(oneByOne)).toBe(limit);
      expect(oneByOne.at(limit - 1)?.windows[0]?.remaining).toBe(0);
      const next = clock.now() + 60_000;
      const bursts = await consumeBursts(limiter, HUGE, limit + 10, next, 10_000);
      expect(allowed(bursts)).toBe(limit);
      // Leases are capped at 1% of the limit (10 000): about 100 acquires per million, plus the ramp-up.
      expect(counting.acquires).toBeLessThanOrEqual(2 * 120);
    }, 60_000);

    it("takes a huge-limit key off the store: 10k requests cost only a few acquires", async () => {
      const { limiter, counting } = await open();
      await consumeMany(limiter, HUGE, 10_000, T0);
      expect(counting.acquires).toBeLessThanOrEqual(200);
      const sequential = counting.acquires;
      await consumeBursts(limiter, HUGE, 10_000, T0, 1000);
      expect(counting.acquires - sequential).toBeLessThanOrEqual(200);
    });

    it("never has two acquires in flight for one bucket (single flight)", async () => {
      const { limiter, counting } = await open();
      const decisions = await consumeBursts(limiter, PRO, 700, T0, 700);
      expect(allowed(decisions)).toBe(600);
      expect(counting.maxInFlight).toBe(1);
    });

    it("counts refused requests in no window", async () => {
      const { limiter } = await open();
      await consumeBursts(limiter, FREE, 100, T0);
      const [next] = await consumeMany(limiter, FREE, 1, T0 + 60_000);
      expect(next?.allowed).toBe(true);
      expect(next?.windows.map((w) => w.remaining)).toEqual([59, 1000 - 61]);
      const pro = (await open()).limiter;
      await consumeBursts(pro, PRO, 650, T0);
      const [proNext] = await consumeMany(pro, PRO, 1, T0 + 60_000);
      expect(proNext?.windows.map((w) => w.remaining)).toEqual([599, 50_000 - 601]);
    });

    it("drops the lease when the minute rolls over, giving its rest back to the day", async () => {
      const { limiter, store } = await open();
      const before = await consumeMany(limiter, PRO, 10, T0);
      // Leased but unused requests are counted in the store already.
      const leased = 600 - ((await storeRemaining(store, PRO, T0))[0] ?? 0);
      expect(leased).toBeGreaterThan(10);
      expect(before.at(-1)?.windows.map((w) => w.remaining)).toEqual([590, 50_000 - 10]);
      const nextMinute = T0 + 60_000;
      const [first] = await consumeMany(limiter, PRO, 1, nextMinute);
      expect(first?.windows.map((w) => w.remaining)).toEqual([599, 50_000 - 11]);
      await limiter.close();
      // The old minute holds exactly what was admitted in it; so do the new minute and the day.
      expect(await storeRemaining(store, PRO, T0)).toEqual([590, 50_000 - 11]);
      expect(await storeRemaining(store, PRO, nextMinute)).toEqual([599, 50_000 - 11]);
    });

    it("answers peek from a live lease without the store", async () => {
      const { limiter, counting } = await open();
      // Leases of 1, 2, then 4: after four requests, three leased requests are left.
      await consumeMany(limiter, PRO, 4, T0);
      const peeks = counting.peeks;
      const peeked = await limiter.peek("key:k", PRO, T0);
      const decisions = await consumeMany(limiter, PRO, 1, T0);
      expect(peeked.allowed).toBe(true);
      expect(peeked.windows.map((w) => w.remaining)).toEqual([596, 50_000 - 4]);
      expect(decisions[0]?.windows[0]?.remaining).toBe(595);
      expect(counting.peeks).toBe(peeks);
      // No live lease (a free key leases one at a time): the store answers.
      const free = await open();
      await consumeMany(free.limiter, FREE, 1, T0);
      expect((await free.limiter.peek("key:k", FREE, T0)).windows[0]?.remaining).toBe(59);
      expect(free.counting.peeks).toBe(1);
    });

    it("answers a request stamped before the windows it moved on to from the store", async () => {
      const { limiter, store } = await open();
      await consumeMany(limiter, PRO, 5, T0 + 60_000);
      const [late] = await consumeMany(limiter, PRO, 1, T0);
      expect(late?.allowed).toBe(true);
      expect(late?.windows[0]?.remaining).toBe(599);
      expect((await storeRemaining(store, PRO, T0))[0]).toBe(599);
    });

    it("takes a new lease when the key's limits change", async () => {
      const { limiter } = await open();
      await consumeMany(limiter, HUGE, 100, T0);
      const smaller = [
        { limit: 103, windowSeconds: MINUTE },
        { limit: 1_000_000_000, windowSeconds: DAY },
      ];
      const decisions = await consumeMany(limiter, smaller, 10, T0);
      expect(allowed(decisions)).toBe(3);
    });
  });

  describe("across processes (two stores on one data dir)", () => {
    const pair = async () => {
      const a = await open();
      const b = await open({ dir: a.dir, clock: a.clock });
      return [a, b] as const;
    };

    it("admits exactly 60 of a free key in total, interleaved one by one", async () => {
      const [a, b] = await pair();
      let admitted = 0;
      for (let i = 0; i < 80; i++) {
        if ((await a.limiter.consume("key:k", FREE, T0)).allowed) admitted++;
        if ((await b.limiter.consume("key:k", FREE, T0)).allowed) admitted++;
      }
      expect(admitted).toBe(60);
    });

    it("gives a free key's count back where the other process sees it at once (a lease of one)", async () => {
      const [a, b] = await pair();
      await consumeMany(a.limiter, FREE, 60, T0);
      // The 60th is refused after all (a concurrency 429) and given back.
      await a.limiter.release("key:k", FREE, 1, T0);
      const other = await b.limiter.consume("key:k", FREE, T0);
      expect(other.allowed).toBe(true);
      expect(other.windows[0]?.remaining).toBe(0);
      expect((await a.limiter.consume("key:k", FREE, T0)).allowed).toBe(false);
    });

    it("admits exactly 60 of a free key in total under concurrent bursts in both", async () => {
      const [a, b] = await pair();
      const results = await Promise.all([
        consumeBursts(a.limiter, FREE, 80, T0, 20),
        consumeBursts(b.limiter, FREE, 80, T0, 20),
      ]);
      expect(allowed(results[0]) + allowed(results[1])).toBe(60);
      expect(allowed(results[0])).toBeGreaterThan(0);
      expect(allowed(results[1])).toBeGreaterThan(0);
    });

    it("never admits more than a pro key's limit in total, and leaks no counts", async () => {
      const [a, b] = await pair();
      const results = await Promise.all([
        consumeBursts(a.limiter, PRO, 500, T0, 25),
        consumeBursts(b.limiter, PRO, 500, T0, 25),
      ]);
      const total = allowed(results[0]) + allowed(results[1]);
      expect(total).toBeLessThanOrEqual(600);
      // Under-admission is bounded by the other process's unused lease (1% of 600 = 6).
      expect(total).toBeGreaterThanOrEqual(600 - 6);
      a.clock.advance(1000);
      await Promise.all([a.limiter.releaseIdle(), b.limiter.releaseIdle()]);
      expect(await storeRemaining(a.store, PRO, T0)).toEqual([600 - total, 50_000 - total]);
    });

    it("gives an idle lease back, so the other process sees it free again", async () => {
      const [a, b] = await pair();
      const taken = 20;
      await consumeMany(a.limiter, PRO, taken, T0);
      const [minuteBefore] = await storeRemaining(b.store, PRO, T0);
      expect(minuteBefore).toBeLessThan(600 - taken);
      a.clock.advance(999);
      await a.limiter.releaseIdle();
      expect(a.counting.releases).toBe(0);
      a.clock.advance(1);
      await a.limiter.releaseIdle();
      expect(a.counting.releases).toBe(1);
      expect(await storeRemaining(b.store, PRO, T0)).toEqual([600 - taken, 50_000 - taken]);
      // The bucket starts again from a fresh lease.
      const [next] = await consumeMany(a.limiter, PRO, 1, a.clock.now());
      expect(next?.windows[0]?.remaining).toBe(600 - taken - 1);
    });

    it("gives every lease back on close", async () => {
      const [a, b] = await pair();
      await consumeMany(a.limiter, PRO, 20, T0);
      await a.limiter.close();
      expect(await storeRemaining(b.store, PRO, T0)).toEqual([580, 50_000 - 20]);
      // After close, requests go straight to the store.
      expect((await a.limiter.consume("key:k", PRO, T0)).windows[0]?.remaining).toBe(579);
    });
  });
});
