import type { SkillportError } from "./errors.js";

/** Exponential backoff: the first retry waits 250–500 ms, each next one twice as long… */
const BACKOFF_BASE_MS = 500;
/** …but never more than 8 s. */
export const BACKOFF_CAP_MS = 8_000;
/**
 * A server asking to wait longer than this (a key's daily limit is spent) is not waited
 * for: the error goes to the caller at once, with `retryAfterSeconds` telling how long.
 * A minute window never asks for more.
 */
const MAX_SERVER_WAIT_MS = 60_000;

/**
 * Statuses worth another try. 429 and 503 are the contract's; 502 and 504 come from
 * proxies in front of the service when it is briefly unreachable. Every other 4xx is the
 * caller's to fix, and a 500 is a bug that a retry would only repeat.
 */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Whether an attempt that failed this way may have reached the service and still be
 * running there: its connection dropped, or a proxy in front of the service gave up on
 * it (502, 504) while the service may not have. A retry of such an `execute` meets
 * `idempotency_in_progress` until that run ends.
 */
export function mayHaveReachedService(error: SkillportError): boolean {
  return error.code === "connection_error" || error.status === 502 || error.status === 504;
}

/**
 * Equal jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): half of the
 * capped exponential, plus a uniformly random part of the other half. The waits double
 * from one retry to the next, and clients refused together do not come back together.
 * `retry` is 1 for the first retry.
 */
export function backoffDelayMs(retry: number): number {
  const ceilingMs = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
  return ceilingMs / 2 + Math.floor((Math.random() * ceilingMs) / 2);
}

/**
 * The wait a `Retry-After` header asks for (RFC 9110 §10.2.3): delay-seconds or an
 * HTTP-date. Undefined when absent or unreadable.
 */
export function retryAfterHeaderMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its day and month ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse
  // would also read "1.5" or "7" as dates, long past, and retry at once.
  if (!/[a-z]/i.test(text)) return undefined;
  const dateMs = Date.parse(text);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

/** What the policy needs to know about a failed attempt. */
export interface FailedAttempt {
  error: SkillportError;
  /** The response's `Retry-After` header, if any. */
  retryAfterHeader: string | undefined;
  /** 1 for the first retry this call would make (of any kind). */
  retry: number;
  /** Retries the call may still make under `maxRetries`. */
  retriesLeft: number;
  /**
   * False: a refusal (429, 503) is the caller's answer, unless an earlier attempt of the
   * call may have reached the service (`earlierAttemptMayHaveLanded`); only a lost answer
   * is retried.
   */
  retryRefusals: boolean;
  /**
   * An earlier attempt of this call failed in a way that may have reached the service
   * (`mayHaveReachedService`): only the same request again (the same Idempotency-Key) can
   * tell whether it ran.
   */
  earlierAttemptMayHaveLanded: boolean;
  /**
   * True, within the call's deadline, when a run under this call's Idempotency-Key may be
   * on the server: an earlier attempt of this call that may have reached it
   * (`mayHaveReachedService`), or, with a key the caller chose, an earlier call of theirs
   * (one they stopped waiting for, then repeated to find its record).
   */
  sameKeyMayBeRunning: boolean;
  nowMs: number;
}

export interface RetryDecision {
  delayMs: number;
  /** Whether this retry uses up one of `maxRetries`. */
  counted: boolean;
}

/**
 * Whether and how long to wait before the next attempt; undefined to give up and throw.
 * Exponential backoff (interface-spec.md: rate-limited requests are retried with
 * exponential backoff), never sooner than the server asks (the header, else
 * `error.retry_after`).
 */
export function decideRetry(attempt: FailedAttempt): RetryDecision | undefined {
  const { error } = attempt;
  // `idempotency_in_progress` is a 409: a run under the same Idempotency-Key is still going.
  // When that run may be this call's own (an attempt cut off mid-flight) or one the caller
  // started with the key they pass again (an `execute` they aborted), waiting for it is
  // how the call gets its one record: the run's record is the answer once it ends.
  // The caller's deadline (timeoutMs + timeout_ms) bounds these waits, not maxRetries.
  if (error.code === "idempotency_in_progress" && attempt.sameKeyMayBeRunning) {
    return { delayMs: backoffDelayMs(attempt.retry), counted: false };
  }
  if (attempt.retriesLeft <= 0) return undefined;
  const retryable =
    error.code === "connection_error" || (error.status !== undefined && RETRYABLE_STATUSES.has(error.status));
  if (!retryable) return undefined;
  // A refusal after a lost attempt is retried all the same: thrown, it would tell a caller
  // nothing ran when the lost attempt may have run (the limiter counted it, or the service
  // restarted since), and a caller trying again with a new key would run it twice.
  if (!attempt.retryRefusals && !mayHaveReachedService(error) && !attempt.earlierAttemptMayHaveLanded) {
    return undefined;
  }
  const serverWaitMs =
    retryAfterHeaderMs(attempt.retryAfterHeader, attempt.nowMs) ??
    (error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000);
  const backoffMs = backoffDelayMs(attempt.retry);
  if (serverWaitMs === undefined) return { delayMs: backoffMs, counted: true };
  if (serverWaitMs > MAX_SERVER_WAIT_MS) return undefined;
  return { delayMs: Math.max(serverWaitMs, backoffMs), counted: true };
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
