import type { FastifyReply } from "fastify";
import { withinDeadline } from "../core/answer-deadline.js";
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

/**
 * How long a response that involves no key waits for its client address's limit headers
 * (ms). They are one read of the address's counters: SQLite answers at once, Redis in a
 * millisecond. A Redis that has not answered by then is hung or gone (its own deadline is
 * a second), and the answer, e.g. a `/healthz` or `/readyz` probe that Kubernetes gives up
 * on after one second, a `/metrics` scrape or the refusal of a malformed request, goes
 * without the headers rather than wait for it.
 */
const ADDRESS_STATUS_WAIT_MS = 100;

/** The address's limit status, or a rejection if it cannot be read within `ADDRESS_STATUS_WAIT_MS`. */
export function addressStatusSoon(
  addressStatus: (address: string) => Promise<RateLimitStatus>,
  address: string,
): Promise<RateLimitStatus> {
  return withinDeadline(addressStatus(address), ADDRESS_STATUS_WAIT_MS, "The limiter");
}
