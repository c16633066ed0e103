import type { ErrorCode, ErrorDetail, ExecutionErrorCode } from "../core/errors.js";
import type { ExecutionRecord } from "../core/execution/record.js";

/**
 * Codes the client itself raises when there is no error body from the server:
 * - `missing_api_key`: no key was passed and `SKILLPORT_API_KEY` is not set (the
 *   server's code for the same situation; nothing was sent);
 * - `connection_error`: the connection, name resolution or TLS failed, or the connection
 *   dropped (retried before it is thrown);
 * - `timeout`: an attempt took longer than `timeoutMs`, or `waitForExecution` passed its deadline;
 * - `unexpected_response`: an answer without the contract's shape (e.g. a proxy's HTML page), or
 *   not HTTP at all;
 * - `client_closed`: a call after `close()` (or after the caller closed the dispatcher it passed in);
 *   nothing was sent.
 */
export type ClientErrorCode =
  | "missing_api_key"
  | "connection_error"
  | "timeout"
  | "unexpected_response"
  | "client_closed";

/** Every code a `SkillportError` can carry; unknown future server codes pass through as strings. */
export type SkillportErrorCode = ErrorCode | ExecutionErrorCode | ClientErrorCode | (string & {});

/** The contract's error body (`{"error": {...}}`), exactly as the server sends it. */
export interface ErrorBody {
  code: SkillportErrorCode;
  message: string;
  details?: ErrorDetail[];
  request_id?: string;
  retry_after?: number;
  /** On `idempotency_in_progress`: the execution still running under the Idempotency-Key. */
  execution_id?: string;
}

export interface SkillportErrorInit {
  /** The HTTP status of an error response; absent when none was received. */
  status?: number;
  body: ErrorBody;
  /** The record of an execution that ended without success (`throwOnFailure`). */
  execution?: ExecutionRecord;
  /**
   * The wait the response's `Retry-After` header asks for, in whole seconds: carried when
   * the body has no `retry_after` (a 429 or 503 of a proxy, whose body is not the service's).
   */
  retryAfterHeaderSeconds?: number;
  cause?: unknown;
}

/**
 * The one error the client throws. A server error keeps the server's code, message,
 * details, request id and retry hint unchanged (`body` holds the body verbatim, for
 * code that passes it on); a failed execution thrown under `throwOnFailure` carries the
 * record's error code and the record itself.
 */
export class SkillportError extends Error {
  /** HTTP status of the error response; undefined for client-side errors and failed executions. */
  readonly status: number | undefined;
  readonly code: SkillportErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** The server's request id (also its `X-Request-Id`), to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /**
   * Seconds the server asked to wait before retrying (429, 503): the body's `retry_after`,
   * else the `Retry-After` header's.
   */
  readonly retryAfterSeconds: number | undefined;
  /**
   * The execution an error is about: the one still running under the Idempotency-Key
   * (`idempotency_in_progress`), to follow with `waitForExecution`; the failed one under
   * `throwOnFailure`.
   */
  readonly executionId: string | undefined;
  readonly execution: ExecutionRecord | undefined;
  /** The error body as the server sent it (or as the client made it for its own errors). */
  readonly body: ErrorBody;

  constructor(init: SkillportErrorInit) {
    super(init.body.message, { cause: init.cause });
    this.name = "SkillportError";
    this.status = init.status;
    this.code = init.body.code;
    this.details = init.body.details;
    this.requestId = init.body.request_id;
    this.retryAfterSeconds = init.body.retry_after ?? init.retryAfterHeaderSeconds;
    this.executionId = init.body.execution_id ?? init.execution?.id;
    this.execution = init.execution;
    this.body = init.body;
  }
}

/** The `error` member of a body, when the body has the contract's shape. */
export function errorBodyOf(json: unknown): ErrorBody | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const error = (json as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as Partial<ErrorBody>;
  return typeof code === "string" && typeof message === "string" ? (error as ErrorBody) : undefined;
}

/** A client-side error (no HTTP error response behind it). */
export function clientError(code: ClientErrorCode, message: string, cause?: unknown): SkillportError {
  return new SkillportError({ body: { code, message }, cause });
}

/**
 * The refusal of a call on a closed client (`close()`, or the caller closing the dispatcher
 * they passed in): nothing was sent.
 */
export function clientClosed(cause?: unknown): SkillportError {
  return clientError(
    "client_closed",
    "This Skillport client is closed (close() was called, or its dispatcher was closed): create a new one for further calls.",
    cause,
  );
}
