import type { FastifyReply } from "fastify";
import type { RateLimitStatus } from "../core/limits/rate-limit.js";

const WINDOW_NAMES: Record<number, string> = { 60: "minute", 86400: "day" };

/**
 * The limit headers of interface-spec.md ("Limits") for the window with the fewest
 * requests remaining, and the IETF draft's `RateLimit-Policy` / `RateLimit` structured
 * fields (draft-ietf-httpapi-ratelimit-headers) describing every window.
 */
export function rateLimitHeaders(status: RateLimitStatus, nowMs: number): Record<string, string> {
  const { current, windows } = status;
  const name = (seconds: number) => WINDOW_NAMES[seconds] ?? `${seconds}s`;
  return {
    "x-ratelimit-limit": String(current.limit),
    "x-ratelimit-remaining": String(Math.max(0, current.remaining)),
    "x-ratelimit-reset": String(current.resetAtSeconds),
    "x-ratelimit-window": String(current.windowSeconds),
    "ratelimit-policy": windows
      .map((w) => `"${name(w.windowSeconds)}";q=${w.limit};w=${w.windowSeconds}`)
      .join(", "),
    ratelimit: windows
      .map((w) => {
        const secondsLeft = Math.max(0, Math.ceil(w.resetAtSeconds - nowMs / 1000));
        return `"${name(w.windowSeconds)}";r=${Math.max(0, w.remaining)};t=${secondsLeft}`;
      })
      .join(", "),
  };
}

export function setRateLimitHeaders(reply: FastifyReply, status: RateLimitStatus, nowMs: number): void {
  reply.headers(rateLimitHeaders(status, nowMs));
}
