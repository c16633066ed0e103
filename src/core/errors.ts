import { maskWorkingSecrets } from "./keys/secret.js";
import type { RateLimitStatus } from "./limits/rate-limit.js";

/**
 * The one table of error codes (contract.md, "Errors"). Every surface maps a
 * `ServiceError` through this table: REST to a status and body, MCP to an
 * `isError` result. Adding a code means adding a row here, nowhere else.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, message: "The request is invalid." },
  missing_api_key: { status: 401, message: "No API key: send the header 'Authorization: Bearer <API_KEY>'." },
  invalid_api_key: { status: 401, message: "The API key is unknown, malformed, revoked or expired." },
  insufficient_scope: { status: 403, message: "This API key's scope does not allow this operation." },
  // MCP's Streamable HTTP transport: an Origin the server does not allow MUST be answered
  // 403 (DNS rebinding); a Host it does not answer to is the same attack, refused alike.
  host_not_allowed: { status: 403, message: "This server does not answer to the request's Host or Origin." },
  skill_not_found: { status: 404, message: "No skill has this id." },
  execution_not_found: { status: 404, message: "No execution has this id." },
  not_found: { status: 404, message: "No such path." },
  method_not_allowed: { status: 405, message: "This method is not allowed on this path." },
  idempotency_in_progress: {
    status: 409,
    message: "A request with this Idempotency-Key is still being processed.",
  },
  // Issue 7: a request whose headers or body do not arrive in time (slowloris) is cut off.
  request_timeout: { status: 408, message: "The request was not received in time." },
  execution_not_cancellable: { status: 409, message: "The execution has already ended." },
  payload_too_large: { status: 413, message: "The request body is too large." },
  unsupported_media_type: { status: 415, message: "The request body must be application/json." },
  invalid_params: { status: 422, message: "The params do not match the skill's schema." },
  idempotency_key_reused: {
    status: 422,
    message: "This Idempotency-Key was used with a different request body.",
  },
  rate_limit_exceeded: { status: 429, message: "Rate limit exceeded." },
  // Issue 7: a key's unfinished executions are capped, with Retry-After like a rate limit.
  concurrency_limit_exceeded: {
    status: 429,
    message: "Too many executions of this API key are unfinished; retry when one ends.",
  },
  internal_error: { status: 500, message: "Internal error." },
  service_unavailable: { status: 503, message: "The service is unavailable; retry later." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes an execution record can carry in `error.code` (contract.md, "Execution record"). */
export const EXECUTION_ERROR_CODES = [
  "execution_failed",
  "execution_timeout",
  "execution_cancelled",
  "execution_interrupted",
] as const;
export type ExecutionErrorCode = (typeof EXECUTION_ERROR_CODES)[number];

/** Where and what went wrong in a request body or params (`error.details`). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** The contract's error object, as every surface sends it (REST adds its `request_id`). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  /** Whole seconds to wait before retrying. */
  retry_after?: number;
  /**
   * The execution the refusal is about (`idempotency_in_progress`: the run still going
   * under the Idempotency-Key), for the caller to follow instead of repeating.
   */
  execution_id?: string;
}

/** `error` as the contract shows it: `{code, message, details?, retry_after?, execution_id?}`. */
export function errorBody(error: ServiceError): ErrorBody {
  return {
    code: error.code,
    message: error.message,
    ...(error.details && { details: error.details }),
    ...(error.retryAfterSeconds !== undefined && { retry_after: error.retryAfterSeconds }),
    ...(error.executionId !== undefined && { execution_id: error.executionId }),
  };
}

export interface ServiceErrorOptions {
  message?: string;
  details?: ErrorDetail[];
  retryAfterSeconds?: number;
  /** The execution the refusal is about (`execution_id` in the body). */
  executionId?: string;
  /** Extra response headers a surface should send (e.g. `Allow` on 405). */
  headers?: Record<string, string>;
  /**
   * Where the caller's rate limits stand after this refusal, when it changed them after
   * admission (a 429 gives its count back): surfaces describe these, not admission's.
   */
  limit?: RateLimitStatus;
  cause?: unknown;
}

/**
 * The one error type the core throws. It carries a code of `ERROR_CODES`, never an
 * HTTP type; surfaces translate it.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly executionId: string | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly limit: RateLimitStatus | undefined;

  constructor(code: ErrorCode, options: ServiceErrorOptions = {}) {
    // A message or detail often repeats what the request held (an id, a member's name):
    // a working secret sent there by mistake is masked, as in records, on every surface.
    super(maskWorkingSecrets(options.message ?? ERROR_CODES[code].message), { cause: options.cause });
    this.name = "ServiceError";
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = options.details?.map(({ path, message }) => ({
      path: maskWorkingSecrets(path),
      message: maskWorkingSecrets(message),
    }));
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.executionId = options.executionId;
    this.headers = options.headers;
    this.limit = options.limit;
  }

  /** The same error, telling where the caller's limits stand after it (see `limit`). */
  withLimit(limit: RateLimitStatus): ServiceError {
    return this.with({ limit });
  }

  /** The same error in other words: what the caller sent told more exactly. */
  withMessage(message: string): ServiceError {
    return this.with({ message });
  }

  /**
   * The same error with `changes`: every option is carried over from here, so that a copy
   * never loses one (a 409's `executionId` did, when each copier listed the fields it kept).
   */
  private with(changes: Partial<ServiceErrorOptions>): ServiceError {
    // Every option named, even when unset: a new one not carried over fails to compile.
    const kept = {
      message: this.message,
      details: this.details,
      retryAfterSeconds: this.retryAfterSeconds,
      executionId: this.executionId,
      headers: this.headers,
      limit: this.limit,
      cause: this.cause,
    } satisfies Record<keyof ServiceErrorOptions, unknown>;
    return new ServiceError(this.code, { ...kept, ...changes });
  }
}

/** The refusal of work once the service is shutting down, on every surface (README, "Reliability"). */
export function shuttingDownError(): ServiceError {
  return new ServiceError("service_unavailable", {
    message: "The service is shutting down.",
    retryAfterSeconds: 5,
  });
}

/** What a client is told while the store cannot serve; never the driver's message (paths, addresses). */
const STORE_UNAVAILABLE_MESSAGE = "The store is unavailable; retry later.";

/**
 * When a client should retry after a store outage: an outage that ends (space freed, the
 * database back after a restart or failover) usually does within seconds, and the same
 * wait as for a shutting-down process spreads the retries without holding clients long.
 */
export const STORE_OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The one mapping of anything thrown to the contract's error (every surface goes through
 * it, most through `Skillport.errorOf`, which passes the store's classifier):
 * - a `ServiceError` stays as it is;
 * - an error `isOutage` recognizes (the store cannot serve right now: disk full, database
 *   unreachable) is `service_unavailable` with Retry-After, which clients retry, since an
 *   outage is not a bug (contract.md: 500 means one);
 * - anything else is a bug: `internal_error`.
 * Either way the original is kept as `cause` (for the log), and its message never
 * reaches a client.
 */
export function toServiceError(
  err: unknown,
  isOutage: (err: unknown) => boolean = () => false,
): ServiceError {
  if (err instanceof ServiceError) return err;
  if (isOutage(err)) {
    return new ServiceError("service_unavailable", {
      message: STORE_UNAVAILABLE_MESSAGE,
      retryAfterSeconds: STORE_OUTAGE_RETRY_AFTER_SECONDS,
      cause: err,
    });
  }
  return new ServiceError("internal_error", { cause: err });
}
