import type { LimitDecision, LimitGrant, LimitWindow, WindowState } from "../ports.js";

/**
 * The arithmetic of fixed limit windows, one copy for the leases and for every store's
 * counters. Windows are aligned to the Unix epoch (contract.md, "Limits"): a window starts
 * at floor(now / windowSeconds) * windowSeconds, so the 86 400 s window starts at UTC
 * midnight in every process without any coordination.
 */

/** A count a store keeps for a bucket: the windows of one length share it. */
export interface WindowCounter {
  windowSeconds: number;
  /** Unix seconds: the start of the window. */
  windowStart: number;
  /** The smallest limit among the windows of this length. */
  limit: number;
}

/** Unix seconds: the start of the window of `windowSeconds` that contains `nowMs`. */
export function windowStartSeconds(nowMs: number, windowSeconds: number): number {
  return Math.floor(Math.floor(nowMs / 1000) / windowSeconds) * windowSeconds;
}

/** The counters `windows` count in at `nowMs`: one per window length, in the order of `windows`. */
export function countersOf(windows: readonly LimitWindow[], nowMs: number): WindowCounter[] {
  const counters: WindowCounter[] = [];
  for (const { windowSeconds, limit } of windows) {
    const shared = counters[indexOfLength(counters, windowSeconds)];
    if (shared) shared.limit = Math.min(shared.limit, limit);
    else counters.push({ windowSeconds, windowStart: windowStartSeconds(nowMs, windowSeconds), limit });
  }
  return counters;
}

/**
 * What `Limiter.acquire` grants of `wanted` (a whole number, never below 0) when
 * `counters[i]` stands at `counts[i]`: as many as every counter has left, 0 when any is
 * exhausted. (The Redis limiter does the same in its script, `store/redis/scripts.ts`.)
 */
export function grantOf(
  wanted: number,
  counters: readonly WindowCounter[],
  counts: readonly number[],
): number {
  let granted = Math.max(0, Math.floor(wanted));
  counters.forEach(({ limit }, i) => {
    granted = Math.max(0, Math.min(granted, limit - (counts[i] ?? 0)));
  });
  return granted;
}

/**
 * Each window's state once its counter stands at `counts[i] + granted`, `counts[i]` being
 * the count of `counters[i]` (remaining = limit − count, never below 0).
 */
export function windowStates(
  windows: readonly LimitWindow[],
  counters: readonly WindowCounter[],
  counts: readonly number[],
  granted: number,
): WindowState[] {
  return windows.map(({ limit, windowSeconds }) => {
    const index = indexOfLength(counters, windowSeconds);
    const used = (counts[index] ?? 0) + granted;
    return {
      limit,
      remaining: Math.max(0, limit - used),
      resetAtSeconds: (counters[index]?.windowStart ?? 0) + windowSeconds,
      windowSeconds,
    };
  });
}

/** A loop rather than `findIndex`, so that no closure is made per window on the request path. */
function indexOfLength(counters: readonly WindowCounter[], windowSeconds: number): number {
  for (let i = 0; i < counters.length; i++) if (counters[i]?.windowSeconds === windowSeconds) return i;
  return -1;
}

/**
 * `consume`'s answer from `acquire` of one request: allowed when it was granted (a refused
 * request counts in no window: contract.md, "A request answered 429 does not count").
 */
export function oneRequestDecision({ granted, windows }: LimitGrant): LimitDecision {
  return { allowed: granted === 1, windows };
}

/**
 * `peek`'s answer when `counters[i]` stands at `counts[i]`: the windows as they stand, and
 * a request allowed while every one has room.
 */
export function peekDecision(
  windows: readonly LimitWindow[],
  counters: readonly WindowCounter[],
  counts: readonly number[],
): LimitDecision {
  const states = windowStates(windows, counters, counts, 0);
  return { allowed: states.every((state) => state.remaining > 0), windows: states };
}

/** A store's counters of one bucket, as `acquireOnCounters` reads and counts them. */
export interface BucketCounters {
  /** The count of each of `counters`, in their order (0 for one never counted). */
  countsOf(counters: readonly WindowCounter[]): number[];
  /** Counts `granted` more in `counter`, which stood at `count` when read. */
  add(counter: WindowCounter, count: number, granted: number): void;
}

/**
 * `Limiter.acquire` for a store that reads and counts its counters one at a time, within
 * one atomic step of its own (the in-memory limiter's synchronous call, the SQLite
 * limiter's IMMEDIATE transaction): every counter is read, then the grant counted in each,
 * so a refused request (granted 0) counts in none. (The Redis limiter does the same in
 * its script, `store/redis/scripts.ts`.)
 */
export function acquireOnCounters(
  windows: readonly LimitWindow[],
  wanted: number,
  nowMs: number,
  bucket: BucketCounters,
): LimitGrant {
  const counters = countersOf(windows, nowMs);
  const counts = bucket.countsOf(counters);
  const granted = grantOf(wanted, counters, counts);
  if (granted > 0) {
    for (const [i, counter] of counters.entries()) bucket.add(counter, counts[i] ?? 0, granted);
  }
  return { granted, windows: windowStates(windows, counters, counts, granted) };
}
