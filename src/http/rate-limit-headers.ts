import type { FastifyReply } from "fastify";
import type { RateLimitStatus } from "../core/limits/rate-limit.js";

const WINDOW_NAMES: Record<number, string> = { 60: "minute", 86400: "day" };

/**
 * The limit headers of interface-spec.md ("Limits") for the window with the fewest
 * requests remaining, and the IETF draft's `RateLimit-Policy` / `RateLimit` structured
 * fields (draft-ietf-httpapi-ratelimit-headers) describing every window.
 */
export function setRateLimitHeaders(reply: FastifyReply, status: RateLimitStatus, nowMs: number): void {
  const { current, windows } = status;
  reply.header("x-ratelimit-limit", String(current.limit));
  reply.header("x-ratelimit-remaining", String(Math.max(0, current.remaining)));
  reply.header("x-ratelimit-reset", String(current.resetAtSeconds));
  reply.header("x-ratelimit-window", String(current.windowSeconds));
  const name = (seconds: number) => WINDOW_NAMES[seconds] ?? `${seconds}s`;
  reply.header(
    "ratelimit-policy",
    windows.map((w) => `"${name(w.windowSeconds)}";q=${w.limit};w=${w.windowSeconds}`).join(", "),
  );
  reply.header(
    "ratelimit",
    windows
      .map((w) => {
        const secondsLeft = Math.max(0, Math.ceil(w.resetAtSeconds - nowMs / 1000));
        return `"${name(w.windowSeconds)}";r=${Math.max(0, w.remaining)};t=${secondsLeft}`;
      })
      .join(", "),
  );
}
