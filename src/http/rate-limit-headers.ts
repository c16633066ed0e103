import type { FastifyReply, FastifyRequest } from "fastify";
import { withinDeadline } from "../core/answer-deadline.js";
import { type RateLimitStatus, statusAt } from "../core/limits/rate-limit.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The limit this request's response describes (see `answerWithLimit`). */
    answeredLimit?: AnsweredLimit;
  }
}

/** The limit a response describes: as it stood when last read, and how to read it again. */
interface AnsweredLimit {
  status: RateLimitStatus;
  /** Reads the same limit (the key's) as it stands now, without counting. */
  reread: (() => Promise<RateLimitStatus>) | undefined;
}

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

/**
 * Makes `status` the limit the response to `request` describes; its headers are written as
 * the response is sent (`setAnsweredLimitHeaders`). `reread` reads the same limit again;
 * without one, the one given before is kept (a refusal that gave back what admission
 * counted changes the status, not whose it is).
 */
export function answerWithLimit(
  request: FastifyRequest,
  status: RateLimitStatus,
  reread?: () => Promise<RateLimitStatus>,
): void {
  request.answeredLimit = { status, reread: reread ?? request.answeredLimit?.reread };
}

/**
 * Sets the limit headers of the response to `request` from the limit it answers with, as
 * of now: a response may leave long after its request was counted (a sync execute runs
 * up to 300 s, a long poll holds 60 s), and its `RateLimit` `t=` counts from when it is
 * sent (draft-ietf-httpapi-ratelimit-headers), its `X-RateLimit-Reset` names a window
 * that has not ended (contract.md, "Limits"). When a window has ended meanwhile, the
 * limit is read again, to describe the window that counts now; if it cannot be read soon,
 * that window is described as if nothing had counted in it. Sets them at once and
 * returns undefined, or, when the limit must be read again, returns a promise that settles
 * once they are set (so that the many responses that need no read pay no promise).
 * Every response with a limit, one Fastify sends (`onSend`) or one written straight to the
 * socket (an event stream, `/mcp`), goes through here: one rule for all.
 */
export function setAnsweredLimitHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> | undefined {
  const answered = request.answeredLimit;
  if (!answered) return undefined;
  const write = (status: RateLimitStatus) => {
    const now = Date.now();
    reply.headers(rateLimitHeaders(statusAt(status, now), now));
  };
  if (!answered.reread || !windowEnded(answered.status, Date.now())) {
    write(answered.status);
    return undefined;
  }
  return withinDeadline(answered.reread(), LIMIT_STATUS_WAIT_MS, "The limiter").then(
    write,
    (err: unknown) => {
      request.log.debug({ err }, "limit headers from the counted status: the limits cannot be read");
      write(answered.status);
    },
  );
}

function windowEnded(status: RateLimitStatus, nowMs: number): boolean {
  return status.windows.some((w) => w.resetAtSeconds * 1000 <= nowMs);
}

/**
 * How long a response waits for its limit headers when they must be read (ms): those of
 * its client address when it involves no key, or a key's again when a window ended while
 * it was answered. They are one read of the counters: SQLite answers at once, Redis in a
 * millisecond. A Redis that has not answered by then is hung or gone (its own deadline is
 * a second), and the answer, e.g. a `/healthz` or `/readyz` probe that Kubernetes gives up
 * on after one second, a `/metrics` scrape or the refusal of a malformed request, goes
 * without the headers rather than wait for it.
 */
const LIMIT_STATUS_WAIT_MS = 100;

/** The address's limit status, or a rejection if it cannot be read within `LIMIT_STATUS_WAIT_MS`. */
export function addressStatusSoon(
  addressStatus: (address: string) => Promise<RateLimitStatus>,
  address: string,
): Promise<RateLimitStatus> {
  return limitStatusSoon(addressStatus(address));
}

/** A limit status being read, or a rejection if it is not read within `LIMIT_STATUS_WAIT_MS`. */
export function limitStatusSoon(reading: Promise<RateLimitStatus>): Promise<RateLimitStatus> {
  return withinDeadline(reading, LIMIT_STATUS_WAIT_MS, "The limiter");
}
