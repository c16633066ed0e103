import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CircuitBreaker } from "../../src/store/redis/circuit-breaker.js";

describe("CircuitBreaker", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A breaker whose probes are answered by hand: each probe is a promise the test settles. */
  const setUp = () => {
    const probes: { resolve: () => void; reject: () => void }[] = [];
    const closed: number[] = [];
    const breaker = new CircuitBreaker({
      probe: () =>
        new Promise<void>((resolve, reject) => {
          probes.push({ resolve, reject: () => reject(new Error("still down")) });
        }),
      onClosed: (openForMs) => closed.push(openForMs),
      probeEveryMs: 1_000,
    });
    return { breaker, probes, closed };
  };

  it("is closed until a call fails, and the first failure alone opens it", () => {
    const { breaker } = setUp();
    expect(breaker.isOpen).toBe(false);
    expect(breaker.trip()).toBe(true);
    expect(breaker.isOpen).toBe(true);
    expect(breaker.trip()).toBe(false);
    breaker.stop();
  });

  it("probes one at a time, an interval after the last probe ended, until one answers", async () => {
    const { breaker, probes, closed } = setUp();
    breaker.trip();
    await vi.advanceTimersByTimeAsync(999);
    expect(probes).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(probes).toHaveLength(1);
    // A probe that hangs is never joined by a second one.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probes).toHaveLength(1);
    probes[0]?.reject();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probes).toHaveLength(2);
    expect(breaker.isOpen).toBe(true);
    probes[1]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(breaker.isOpen).toBe(false);
    expect(closed).toEqual([7_000]);
    // Closed, it probes no more.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes).toHaveLength(2);
  });

  it("opens again after closing when another call fails", async () => {
    const { breaker, probes } = setUp();
    breaker.trip();
    await vi.advanceTimersByTimeAsync(1_000);
    probes[0]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(breaker.isOpen).toBe(false);
    expect(breaker.trip()).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probes).toHaveLength(2);
    breaker.stop();
  });

  it("stops probing once stopped, and a probe answering after that changes nothing", async () => {
    const { breaker, probes, closed } = setUp();
    breaker.trip();
    await vi.advanceTimersByTimeAsync(1_000);
    breaker.stop();
    probes[0]?.reject();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probes).toHaveLength(1);
    expect(closed).toEqual([]);
  });
});
