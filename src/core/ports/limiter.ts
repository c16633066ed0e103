// The rate limits: per-key request counts in fixed windows, shared by every process.

export interface LimitWindow {
  limit: number;
  windowSeconds: number;
}

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds when this window ends. */
  resetAtSeconds: number;
  windowSeconds: number;
}

/** An expected outcome, not an error: a refused check is `{allowed:false}`. */
export interface LimitDecision {
  allowed: boolean;
  /** One entry per requested window, in the same order. */
  windows: WindowState[];
}

export interface Limiter {
  /**
   * Checks every window of `bucket` and, only if all allow it, counts one request in
   * each, atomically (a refused request counts in none). Windows are fixed and aligned
   * to the Unix epoch, so the day window starts at UTC midnight.
   */
  consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision>;
  /** The same answer without counting. */
  peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision>;
  /**
   * Claims up to `wanted` requests of `bucket` at once (a lease), atomically: grants
   * g = min(wanted, remaining in every window), which is 0 when any window is exhausted,
   * and counts g in every window. The store never grants more than a window's limit in
   * total, so callers that admit only granted requests can never over-admit, whichever
   * process they run in. `windows` describe the shared state after the grant
   * (remaining = limit − count, never below 0). `consume` is `acquire` of 1.
   */
  acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant>;
  /**
   * Gives back `count` requests that an `acquire` at `grantedAtMs` granted and nobody
   * used: lowers, by `count` and never below 0, the counters of the windows that
   * contained `grantedAtMs`. A window that has rolled over since is left as it is for
   * every current purpose: the give-back lands on the ended window's counter, which
   * limits nothing any more, never on the new window's (whose count never included
   * these requests). So a lease dropped when the minute rolls over still returns its
   * unused requests to the day window.
   */
  release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void>;
  /**
   * Present on a limiter that counts in a shared service (Redis) and falls back when that
   * service is out of reach: true while it does (SKILLPORT_REDIS_DOWN applies). Read
   * without I/O, for `/readyz` and `/metrics`.
   */
  readonly degraded?: boolean;
}

/** What `Limiter.acquire` granted. */
export interface LimitGrant {
  /** Requests granted, 0 ≤ granted ≤ wanted; 0 when any window is exhausted. */
  granted: number;
  /** One entry per requested window, in the same order, after the grant. */
  windows: WindowState[];
}
