import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { DiscoverRequest, ExecuteRequest, ListExecutionsQuery } from "../core/api-schemas.js";
import type { SkillportError } from "./errors.js";

/*
 * The client's request and response types come from the schemas and types the server
 * itself validates and answers with, imported as types only: they vanish from the
 * emitted JavaScript, so no server code runs in (or ships with) a client program.
 */

export type { DiscoverResponse, SkillDetail, SkillSummary } from "../core/answer-schemas.js";
export type { ErrorCode, ErrorDetail, ExecutionErrorCode } from "../core/errors.js";
export type { ExecuteStreamEvent, ExecutionEvent, ExecutionLogEvent } from "../core/execution/events.js";
export type { ExecutionRecord, ExecutionStatus } from "../core/execution/record.js";

/** The body of `POST /v1/execute`: `skill_id`, `params`, optional `async` and `timeout_ms`. */
export type ExecuteInput = z.input<typeof ExecuteRequest>;

/** The body of `POST /v1/discover`: `query`, optional `limit` and `tags`. */
export type DiscoverInput = z.input<typeof DiscoverRequest>;

/** Filters of `GET /v1/executions`; `limit` is the page size, `cursor` where to start. */
export type ListExecutionsInput = Partial<
  Pick<ListExecutionsQuery, "status" | "skill_id" | "limit" | "cursor">
>;

/** Paging of `GET /v1/skills`. */
export type ListSkillsInput = {
  limit?: number;
  cursor?: string;
};

/** One page of a cursor-paginated listing; `next_cursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface CallOptions {
  /** Aborts the call, including any wait between retries; the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface ExecuteOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key`. By default the client generates one per call and reuses it
   * on every retry, so a retry never runs the skill twice; pass your own to extend that
   * guarantee across calls or processes (the server remembers it for 24 hours). A call
   * repeated with it while the first one's run still goes (one you aborted) waits for
   * that run and resolves with its record.
   */
  idempotencyKey?: string;
  /** Throw a `SkillportError` (with `execution` set) when the record ends without success. */
  throwOnFailure?: boolean;
}

export interface ExecuteStreamOptions extends CallOptions {
  /** Sent as `Idempotency-Key`; by default one generated per call (see `ExecuteOptions`). */
  idempotencyKey?: string;
}

export interface GetExecutionOptions extends CallOptions {
  /** Long poll: the server holds the request until the record is terminal or this many seconds (0–60) pass. */
  waitSeconds?: number;
}

export interface WaitForExecutionOptions extends CallOptions {
  /** Overall deadline in milliseconds; past it the call rejects with code `timeout`. Default 10 minutes. */
  timeoutMs?: number;
  /** Throw a `SkillportError` (with `execution` set) when the record ends without success. */
  throwOnFailure?: boolean;
}

/** What the `onRetry` hook learns before each wait. */
export interface RetryEvent {
  /** 1 for the first retry of a call, 2 for the second, … */
  retry: number;
  /** How long the client waits before sending the request again. */
  delayMs: number;
  /** Why: the server's error (e.g. `rate_limit_exceeded`) or `connection_error`. */
  error: SkillportError;
  method: string;
  path: string;
}

export interface SkillportOptions {
  /** The API key; default the `SKILLPORT_API_KEY` environment variable. */
  apiKey?: string;
  /** Where the service is; default `SKILLPORT_BASE_URL`, else `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /**
   * Retries per call on 429, 502, 503, 504 and connection errors (429 and 503: see
   * `retryRefusals`); default 3. Following an execution's events, also the new streams
   * opened in a row after one was cut or ended giving no new event.
   */
  maxRetries?: number;
  /**
   * Whether to retry what the service refused for now (429, 503); default true. With
   * false, those are thrown at once (`retryAfterSeconds` tells when to try again), for a
   * caller that decides itself, e.g. an agent; a call whose answer may have been lost on
   * the way (a connection error, a proxy's 502 or 504) is still retried, `execute` with
   * the same Idempotency-Key, so that its run is answered and never made twice, and so
   * are the refusals its retries meet.
   */
  retryRefusals?: boolean;
  /**
   * How long one attempt may take, in milliseconds, on top of the time the call itself
   * asks the server to spend (a synchronous execution's `timeout_ms`, a long poll's
   * wait); default 60000. An attempt that runs out rejects with code `timeout`.
   */
  timeoutMs?: number;
  /**
   * An undici dispatcher (Agent, Pool, ProxyAgent, …); default a keep-alive Agent owned by
   * the client. One passed in stays open on `close()`: it is the caller's.
   */
  dispatcher?: Dispatcher;
  /** Called before every retry, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
}
