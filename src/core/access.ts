import type { Clock } from "./clock.js";
import { ServiceError } from "./errors.js";
import type { ApiKey, Scope } from "./keys/api-key.js";
import type { KeyService } from "./keys/key-service.js";
import { describeDecision, keyWindows, type RateLimitStatus } from "./limits/rate-limit.js";
import type { Limiter, LimitWindow } from "./ports.js";
import type { UsageRecorder } from "./usage/usage-recorder.js";

/**
 * The outcome of admitting a request: the key and its limit status, or the error to
 * answer with. The limit status is present on both sides because every response
 * carries the rate-limit headers, refusals included (contract.md, "Limits").
 */
export type Admission =
  | { admitted: true; key: ApiKey; limit: RateLimitStatus }
  | {
      admitted: false;
      error: ServiceError;
      limit: RateLimitStatus | undefined;
      /** The key refused for its limit (a key refused as such has none): for the request's log. */
      key?: ApiKey;
    };

export interface AccessOptions {
  /**
   * Failed authentications allowed per client address per minute (contract.md: default 30),
   * counted apart for API keys and for the dashboard's sign-in.
   */
  failedAuthPerMinute: number;
}

/**
 * Authentication and rate limiting for every surface: REST and MCP admit a request
 * here, so the same key counts against the same limits whichever way it comes.
 */
export class AccessGate {
  private readonly addressWindows: LimitWindow[];

  constructor(
    private readonly keys: KeyService,
    private readonly limiter: Limiter,
    private readonly clock: Clock,
    private readonly usage: UsageRecorder,
    options: AccessOptions,
  ) {
    this.addressWindows = [{ limit: options.failedAuthPerMinute, windowSeconds: 60 }];
  }

  /** The counter of an address's bad API keys (contract.md, "Limits"). */
  private static keysCounter(clientAddress: string): string {
    return `addr:${clientAddress}`;
  }

  /** The counter of an address's wrong dashboard sign-in tokens, apart from its bad API keys. */
  private static signInCounter(clientAddress: string): string {
    return `sign-in:${clientAddress}`;
  }

  /**
   * Admits a request carrying `bearer` (the secret, or undefined when absent) from
   * `clientAddress`, counting it once against the key's windows. A request refused
   * with 429 counts in none. Requests without a valid key count against the address.
   */
  async admit(bearer: string | undefined, clientAddress: string): Promise<Admission> {
    const authenticated = await this.authenticate(bearer, clientAddress);
    if (!authenticated.admitted) return authenticated;
    return this.charge(authenticated.key);
  }

  /**
   * The key of `bearer` without counting a request against it (for protocol traffic that
   * the contract does not count, such as MCP's `initialize`). A failure counts against
   * the address, as in `admit`.
   */
  async authenticate(
    bearer: string | undefined,
    clientAddress: string,
  ): Promise<{ admitted: true; key: ApiKey } | Extract<Admission, { admitted: false }>> {
    try {
      if (bearer === undefined || bearer === "") throw new ServiceError("missing_api_key");
      return { admitted: true, key: await this.keys.authenticate(bearer) };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      return this.refuseAuthentication(err, clientAddress);
    }
  }

  /** Counts one request against an authenticated key's windows (refused: counts in none). */
  async charge(key: ApiKey): Promise<Admission> {
    const now = this.clock.now();
    const limit = describeDecision(
      await this.limiter.consume(`key:${key.id}`, keyWindows(key.limits), now),
      now,
    );
    // Counted in memory for the usage charts; written to the store later, in batches.
    this.usage.record(key.id, limit.allowed ? "accepted" : "limited", now);
    if (!limit.allowed) return { admitted: false, error: rateLimitError(limit), limit, key };
    return { admitted: true, key, limit };
  }

  /**
   * Takes back the count of a request `admit` let through that is answered 429 after all
   * (a key over its concurrency cap): a request answered 429 counts in no window
   * (contract.md, "Limits"). The give-back lands on the windows containing now, which are
   * the windows it was counted in unless one ended in the instant between. Resolves with
   * where the key stands afterwards.
   */
  async uncharge(key: Pick<ApiKey, "id" | "limits">): Promise<RateLimitStatus> {
    await this.limiter.release(`key:${key.id}`, keyWindows(key.limits), 1, this.clock.now());
    return this.limitStatus(key);
  }

  /** Where a key stands in each window of its plan, without counting a request. */
  async limitStatus(key: Pick<ApiKey, "id" | "limits">): Promise<RateLimitStatus> {
    const now = this.clock.now();
    return describeDecision(await this.limiter.peek(`key:${key.id}`, keyWindows(key.limits), now), now);
  }

  /**
   * Admits an attempt to authenticate by other means than an API key (the dashboard's
   * sign-in): `verify` runs only while the address is under its limit of failed sign-ins,
   * and a failure counts against that limit, so tokens cannot be guessed at speed. The
   * limit is the size of the one for bad API keys but counted apart: an agent on the same
   * address retrying a revoked key (the moment the administrator needs the dashboard) must
   * not lock the right token out.
   */
  async attemptSignIn<T>(clientAddress: string, verify: () => T | undefined): Promise<T | ServiceError> {
    const counter = AccessGate.signInCounter(clientAddress);
    const now = this.clock.now();
    const status = describeDecision(await this.limiter.peek(counter, this.addressWindows, now), now);
    if (!status.allowed) return signInLimitError(status, clientAddress);
    const verified = verify();
    if (verified !== undefined) return verified;
    const counted = describeDecision(await this.limiter.consume(counter, this.addressWindows, now), now);
    if (!counted.allowed) return signInLimitError(counted, clientAddress);
    return new ServiceError("invalid_request", {
      message: "The sign-in token is wrong, or the link was already used.",
    });
  }

  /** The address limit's status without counting (for responses to requests that need no key). */
  async addressStatus(clientAddress: string): Promise<RateLimitStatus> {
    const now = this.clock.now();
    return describeDecision(
      await this.limiter.peek(AccessGate.keysCounter(clientAddress), this.addressWindows, now),
      now,
    );
  }

  private async refuseAuthentication(
    error: ServiceError,
    clientAddress: string,
  ): Promise<Extract<Admission, { admitted: false }>> {
    const now = this.clock.now();
    const decision = await this.limiter.consume(
      AccessGate.keysCounter(clientAddress),
      this.addressWindows,
      now,
    );
    const limit = describeDecision(decision, now);
    return {
      admitted: false,
      error: limit.allowed ? error : failedAuthLimitError(limit, clientAddress),
      limit,
    };
  }
}

/** Throws `insufficient_scope` unless the key's scope allows `needed`. */
export function requireScope(key: ApiKey, needed: Scope): void {
  if (needed === "full-access" && key.scope !== "full-access") {
    throw new ServiceError("insufficient_scope", {
      message: "This operation needs a full-access key; this key is read-only.",
    });
  }
}

/**
 * Says what was refused and from where; the wait is `retryAfterSeconds`, which the page says.
 * Failed sign-ins are counted on their own, so bad API keys play no part in this refusal.
 */
function signInLimitError(limit: RateLimitStatus, clientAddress: string): ServiceError {
  const window = limit.exceeded ?? limit.current;
  return new ServiceError("rate_limit_exceeded", {
    message: `Too many wrong sign-in tokens from this address (${clientAddress}): ${window.limit} in ${window.windowSeconds} seconds.`,
    retryAfterSeconds: limit.retryAfterSeconds ?? 1,
  });
}

/**
 * The address's limit of failed authentications, said as such: as a plain rate limit, a
 * client sending a mistyped or revoked key took it for its plan's limit, and waited to try
 * the same key again.
 */
function failedAuthLimitError(limit: RateLimitStatus, clientAddress: string): ServiceError {
  const window = limit.exceeded ?? limit.current;
  return new ServiceError("rate_limit_exceeded", {
    message: `Too many requests without a working API key from this address (${clientAddress}): ${window.limit} in ${window.windowSeconds} seconds. Requests with a working key are still served; check the key (the 401 answers said what is wrong with it).`,
    retryAfterSeconds: limit.retryAfterSeconds ?? 1,
  });
}

/**
 * The message says which limit; when to retry is `retryAfterSeconds`, which each surface
 * says once (REST: `retry_after` and Retry-After; MCP: a line of the text).
 */
function rateLimitError(limit: RateLimitStatus): ServiceError {
  const window = limit.exceeded ?? limit.current;
  return new ServiceError("rate_limit_exceeded", {
    message: `Rate limit exceeded: ${window.limit} requests per ${window.windowSeconds} seconds.`,
    retryAfterSeconds: limit.retryAfterSeconds ?? 1,
  });
}
