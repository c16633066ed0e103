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
  | { admitted: false; error: ServiceError; limit: RateLimitStatus | undefined };

export interface AccessOptions {
  /** Failed authentications allowed per client address per minute (contract.md: default 30). */
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
    if (!limit.allowed) return { admitted: false, error: rateLimitError(limit), limit };
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
    return this.keyStatus(key);
  }

  /** Where a key stands in each window of its plan, without counting a request. */
  async keyStatus(key: Pick<ApiKey, "id" | "limits">): Promise<RateLimitStatus> {
    const now = this.clock.now();
    return describeDecision(await this.limiter.peek(`key:${key.id}`, keyWindows(key.limits), now), now);
  }

  /**
   * Admits an attempt to authenticate by other means than an API key (the dashboard's
   * sign-in): `verify` runs only while the address is under its limit of failed
   * authentications, and a failure counts against that limit like a bad API key does,
   * so neither can be guessed at speed.
   */
  async attemptSignIn<T>(clientAddress: string, verify: () => T | undefined): Promise<T | ServiceError> {
    const status = await this.addressStatus(clientAddress);
    if (!status.allowed) return rateLimitError(status);
    const verified = verify();
    if (verified !== undefined) return verified;
    const wrong = new ServiceError("invalid_request", {
      message: "The sign-in token is wrong, or the link was already used.",
    });
    const refusal = await this.refuseAuthentication(wrong, clientAddress);
    return refusal.admitted ? wrong : refusal.error;
  }

  /** The address limit's status without counting (for responses to requests that need no key). */
  async addressStatus(clientAddress: string): Promise<RateLimitStatus> {
    const now = this.clock.now();
    return describeDecision(await this.limiter.peek(`addr:${clientAddress}`, this.addressWindows, now), now);
  }

  private async refuseAuthentication(
    error: ServiceError,
    clientAddress: string,
  ): Promise<Extract<Admission, { admitted: false }>> {
    const now = this.clock.now();
    const decision = await this.limiter.consume(`addr:${clientAddress}`, this.addressWindows, now);
    const limit = describeDecision(decision, now);
    return { admitted: false, error: limit.allowed ? error : rateLimitError(limit), limit };
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
