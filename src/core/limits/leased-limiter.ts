import type { Clock } from "../clock.js";
import type { LimitDecision, Limiter, LimitGrant, LimitWindow, WindowState } from "../ports.js";
import { windowStartSeconds } from "./windows.js";

/** Tuning of `LeasedLimiter`; the defaults suit production. */
export interface LeasedLimiterOptions {
  /** A bucket unused this long (ms, by the clock) gives its unused lease back to the store. */
  idleMs?: number;
  /** How often buckets are checked for idleness (ms, real time; one timer for all buckets). */
  sweepEveryMs?: number;
  /** A lease aims to cover this much of its bucket's observed traffic (ms). */
  leaseTargetMs?: number;
}

/**
 * A lease holds at most this share of the smallest window limit (at least 1 request).
 * This is the price of leases: requests leased by one process and not yet used are
 * refused to the others, so a process can make the others under-admit by at most this
 * much (and only until it uses the lease, its windows end, or it is idle for `idleMs`).
 */
const LEASE_CAP_SHARE = 0.01;

/**
 * Rate limiting from leases: a `Limiter` that claims small batches of requests from the
 * store's shared counters in one store transaction (`acquire`), then admits requests from
 * memory until the batch is used up or its windows end. This takes the store off the path
 * of most requests of busy keys.
 *
 * Exactness: a lease is counted in the store when it is granted and the store never grants
 * beyond a limit, so the processes sharing a store together never admit more than the limit
 * (each admitted request spends one granted unit). They may admit less while a lease sits
 * unused elsewhere; `LEASE_CAP_SHARE` bounds that, and a lease of 1 (every limit under
 * 200, e.g. the free plan's 60 a minute) is used by the request that claimed it, so such
 * keys are exact across processes. A refused request is one the store granted nothing for,
 * so it counts in no window. Within a process, `remaining` falls by one per request:
 * it is the store's remaining after the last grant plus this process's unused lease.
 * A process that dies without `close` leaves its unused lease counted until the windows
 * end: under-admission again, within the same cap, never over-admission.
 */
export class LeasedLimiter implements Limiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly idleMs: number;
  private readonly leaseTargetMs: number;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly store: Limiter,
    private readonly clock: Clock,
    options: LeasedLimiterOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 1000;
    this.leaseTargetMs = options.leaseTargetMs ?? 100;
    // One sweep for all buckets rather than a timer each; unref'd so it never keeps a process up.
    this.timer = setInterval(() => void this.releaseIdle(), options.sweepEveryMs ?? 1000);
    this.timer.unref();
  }

  /** Admits from the bucket's lease when one is live, else claims a new lease from the store. */
  async consume(name: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    for (;;) {
      if (this.closed || windows.length === 0) return this.store.consume(name, windows, nowMs);
      let bucket = this.buckets.get(name);
      if (bucket?.pending) {
        // Single flight: wait for the bucket's acquire (or release), then take from it.
        bucket.waiting++;
        await bucket.pending;
        bucket.waiting--;
        continue;
      }
      if (!bucket) {
        bucket = emptyBucket(nowMs);
        this.buckets.set(name, bucket);
      }
      const fit = fitOf(bucket, windows, nowMs);
      // A request stamped before the windows this process moved on to: ask the store directly.
      if (fit === "older") return this.store.consume(name, windows, nowMs);
      bucket.lastUseMs = Math.max(bucket.lastUseMs, nowMs);
      if (fit === "same" && bucket.unused > 0) return take(bucket);
      const renewing = bucket;
      return this.exclusive(renewing, () => this.renew(name, renewing, windows, nowMs));
    }
  }

  /** Answers from the live lease when there is one (no I/O), else from the store. */
  async peek(name: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    const bucket = this.buckets.get(name);
    if (bucket && !bucket.pending && bucket.unused > 0 && fitOf(bucket, windows, nowMs) === "same") {
      return { allowed: true, windows: localWindows(bucket) };
    }
    return this.store.peek(name, windows, nowMs);
  }

  /** Straight to the store: leases are not leased again. */
  acquire(name: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant> {
    return this.store.acquire(name, windows, wanted, nowMs);
  }

  /**
   * Into the live lease of more than one request when the give-back is for its very
   * windows: the store counts those requests already, as it counts every unused one, so the
   * next requests here use them, and `peek` shows them at once (a request refused after
   * `consume`, then `peek`ed for its headers, must not look counted). Other processes may
   * under-admit meanwhile, within the lease cap, as for any lease. A key leased one request
   * at a time is exact across processes, so its give-back goes to the store, as every
   * give-back does otherwise (and once closing, when buckets are being given back).
   */
  async release(name: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void> {
    const bucket = this.buckets.get(name);
    if (
      !this.closed &&
      bucket &&
      !bucket.pending &&
      bucket.granted > 1 &&
      fitOf(bucket, windows, grantedAtMs) === "same"
    ) {
      bucket.unused += count;
      bucket.taken = Math.max(0, bucket.taken - count);
      return;
    }
    return this.store.release(name, windows, count, grantedAtMs);
  }

  /**
   * Gives the unused leases of buckets idle for `idleMs` back to the store and forgets
   * those buckets (so memory follows the active buckets only). Runs every `sweepEveryMs`;
   * callable directly (tests). A failed give-back is dropped: it only leaves requests
   * counted that nobody uses, which errs on the safe side until their windows end.
   */
  async releaseIdle(): Promise<void> {
    const now = this.clock.now();
    const releases: Promise<void>[] = [];
    for (const [name, bucket] of this.buckets) {
      if (bucket.pending || now - bucket.lastUseMs < this.idleMs) continue;
      releases.push(this.exclusive(bucket, () => this.forget(name, bucket)).catch(() => undefined));
    }
    await Promise.all(releases);
  }

  /** Stops the sweep and gives every unused lease back; later calls go straight to the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled(
      [...this.buckets].map(async ([name, bucket]) => {
        while (bucket.pending) await bucket.pending;
        await this.forget(name, bucket);
      }),
    );
  }

  /**
   * Replaces the bucket's lease with a new one for the windows containing `nowMs` and
   * takes one request of it; refuses when the store grants nothing.
   */
  private async renew(
    name: string,
    bucket: Bucket,
    windows: LimitWindow[],
    nowMs: number,
  ): Promise<LimitDecision> {
    if (bucket.unused > 0) {
      // The lease belongs to windows that ended, or to limits since changed. Give its rest
      // back where it was counted (at `grantedAtMs`): the minute that ended no longer
      // matters, but the day that goes on would otherwise keep requests nobody made.
      const unused = bucket.unused;
      bucket.unused = 0;
      await this.store.release(name, bucket.windows, unused, bucket.grantedAtMs);
    }
    const wanted = this.leaseSize(bucket, windows, nowMs);
    const grant = await this.store.acquire(name, windows, wanted, nowMs);
    bucket.windows = windows.map((window) => ({ ...window }));
    bucket.starts = windows.map((window) => windowStartSeconds(nowMs, window.windowSeconds));
    bucket.grantedAtMs = nowMs;
    bucket.shared = grant.windows;
    bucket.granted = grant.granted;
    bucket.taken = 0;
    bucket.unused = grant.granted;
    if (grant.granted === 0) return { allowed: false, windows: grant.windows };
    return take(bucket);
  }

  /**
   * How many requests to lease: about `leaseTargetMs` of the bucket's observed rate (the
   * last lease's use over its age), at most double the last lease (so a lease grows from 1
   * as traffic shows itself, instead of jumping on one sample), at least the requests
   * already waiting, and never over the cap. The store further bounds it by what remains.
   */
  private leaseSize(bucket: Bucket, windows: LimitWindow[], nowMs: number): number {
    const smallest = Math.min(...windows.map((window) => window.limit));
    const cap = Math.max(1, Math.floor(smallest * LEASE_CAP_SHARE));
    if (cap === 1) return 1;
    const ageMs = Math.max(1, nowMs - bucket.grantedAtMs);
    const observed = Math.ceil((bucket.taken / ageMs) * this.leaseTargetMs);
    const grown = Math.min(observed, 2 * bucket.granted);
    return Math.min(cap, Math.max(1, grown, bucket.waiting + 1));
  }

  /** Gives the bucket's unused lease back and forgets the bucket. */
  private async forget(name: string, bucket: Bucket): Promise<void> {
    const unused = bucket.unused;
    bucket.unused = 0;
    if (unused > 0) await this.store.release(name, bucket.windows, unused, bucket.grantedAtMs);
    // Deleted after the give-back, so requests arriving meanwhile wait for it (single flight).
    if (this.buckets.get(name) === bucket) this.buckets.delete(name);
  }

  /** Runs `work` as the bucket's single flight: requests for the bucket wait until it settles. */
  private async exclusive<T>(bucket: Bucket, work: () => Promise<T>): Promise<T> {
    let settle = () => {};
    bucket.pending = new Promise<void>((resolve) => {
      settle = resolve;
    });
    try {
      return await work();
    } finally {
      // Cleared before the waiters resume, so they find the new lease rather than wait again.
      bucket.pending = undefined;
      settle();
    }
  }
}

/** A process's view of one bucket. */
interface Bucket {
  /** The windows (limits and lengths) the lease was granted under. */
  windows: LimitWindow[];
  /** Unix seconds: the start of each of those windows when the lease was granted. */
  starts: number[];
  /** When the lease was granted; names the windows a give-back returns to. */
  grantedAtMs: number;
  /** Leased requests not yet admitted. The store counts them already. */
  unused: number;
  /** The store's windows right after the grant (their counts include the whole lease). */
  shared: WindowState[];
  /** The last lease's size and how many of it were admitted: the observed rate. */
  granted: number;
  taken: number;
  lastUseMs: number;
  /** Set while an acquire or a give-back for this bucket is in flight. */
  pending: Promise<void> | undefined;
  /** Requests waiting for `pending`: demand the next lease should cover. */
  waiting: number;
}

function emptyBucket(nowMs: number): Bucket {
  return {
    windows: [],
    starts: [],
    grantedAtMs: nowMs,
    unused: 0,
    shared: [],
    granted: 0,
    taken: 0,
    lastUseMs: nowMs,
    pending: undefined,
    waiting: 0,
  };
}

/** Admits one request of the live lease. */
function take(bucket: Bucket): LimitDecision {
  bucket.unused--;
  bucket.taken++;
  return { allowed: true, windows: localWindows(bucket) };
}

/** The shared windows as this process sees them: its unused lease is still available. */
function localWindows(bucket: Bucket): WindowState[] {
  return bucket.shared.map((window) => ({
    limit: window.limit,
    remaining: window.remaining + bucket.unused,
    resetAtSeconds: window.resetAtSeconds,
    windowSeconds: window.windowSeconds,
  }));
}

/**
 * How a request's windows relate to the bucket's lease: the very same windows and limits,
 * windows this process already left ("older": possible for a request stamped just before
 * a rollover and delayed), or anything else (new windows, changed limits: a new lease).
 */
function fitOf(bucket: Bucket, windows: LimitWindow[], nowMs: number): "same" | "older" | "other" {
  if (windows.length !== bucket.windows.length) return "other";
  let same = true;
  for (let i = 0; i < windows.length; i++) {
    const window = windows[i];
    const held = bucket.windows[i];
    const heldStart = bucket.starts[i];
    if (!window || !held || heldStart === undefined || window.windowSeconds !== held.windowSeconds) {
      return "other";
    }
    const start = windowStartSeconds(nowMs, window.windowSeconds);
    if (start < heldStart) return "older";
    if (start !== heldStart || window.limit !== held.limit) same = false;
  }
  return same ? "same" : "other";
}
