import type { KeyLimits } from "../keys/api-key.js";
import type { LimitDecision, LimitWindow, WindowState } from "../ports.js";
import { DAY_SECONDS, MINUTE_SECONDS } from "./plans.js";

/** What a surface needs to describe a limit to the client (the X-RateLimit-* headers and more). */
export interface RateLimitStatus {
  /** The window with the fewest requests remaining (the shorter on a tie), per contract.md. */
  current: WindowState;
  /** Every window, shortest first (for the IETF `RateLimit`/`RateLimit-Policy` headers). */
  windows: WindowState[];
  allowed: boolean;
  /** Whole seconds until the exceeded window ends, at least 1; set only when refused. */
  retryAfterSeconds?: number;
  /** The exhausted window that ends last, whose end `retryAfterSeconds` counts to; set only when refused. */
  exceeded?: WindowState;
}

/** The two fixed windows of a key (contract.md, "Limits"), shortest first. */
export function keyWindows(limits: KeyLimits): LimitWindow[] {
  return [
    { limit: limits.perMinute, windowSeconds: MINUTE_SECONDS },
    { limit: limits.perDay, windowSeconds: DAY_SECONDS },
  ];
}

export function describeDecision(decision: LimitDecision, nowMs: number): RateLimitStatus {
  const windows = [...decision.windows].sort((a, b) => a.windowSeconds - b.windowSeconds);
  const [first, ...rest] = windows;
  if (!first) throw new Error("a limit decision needs at least one window");
  const current = rest.reduce((best, w) => (w.remaining < best.remaining ? w : best), first);
  if (decision.allowed) return { current, windows, allowed: true };
  // When a window is exhausted, retrying helps only after the latest exhausted window ends.
  const exhausted = windows.filter((w) => w.remaining <= 0);
  const exceeded = (exhausted.length > 0 ? exhausted : windows).reduce((last, w) =>
    w.resetAtSeconds > last.resetAtSeconds ? w : last,
  );
  const retryAfterSeconds = Math.max(1, Math.ceil(exceeded.resetAtSeconds - nowMs / 1000));
  return { current, windows, allowed: false, retryAfterSeconds, exceeded };
}

/**
 * Where `status` stands at `nowMs` if nothing was counted since it was read: a window that
 * has ended since is the next one of its length (windows are aligned to the Unix epoch),
 * with every request left. For a response sent well after its request was counted (a
 * long poll, a sync execute), when the limits cannot be read again.
 */
export function statusAt(status: RateLimitStatus, nowMs: number): RateLimitStatus {
  const nowSeconds = nowMs / 1000;
  if (status.windows.every((w) => w.resetAtSeconds > nowSeconds)) return status;
  const windows = status.windows.map((w) =>
    w.resetAtSeconds > nowSeconds
      ? w
      : {
          ...w,
          remaining: w.limit,
          resetAtSeconds: (Math.floor(nowSeconds / w.windowSeconds) + 1) * w.windowSeconds,
        },
  );
  return describeDecision({ allowed: status.allowed, windows }, nowMs);
}
