import { ServiceError } from "../errors.js";

export interface ConcurrencyOptions {
  /** Unfinished (queued or running) executions one key may have at once in this process. */
  perKey: number;
  /** Unfinished executions this process holds at once; beyond it the service is saturated. */
  total: number;
}

/** Gives back what `acquire` or `track` took; calling it again does nothing. */
export type ReleaseHold = () => void;

/** How long a refused caller should wait: executions are short, slots free up quickly. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Bounds the executions this process holds, so that a burst queues neither without end
 * nor at everyone's expense (issue 7, "Overload"): a key over its own cap is told
 * `429 concurrency_limit_exceeded`; a service holding its total is `503
 * service_unavailable`. Both carry Retry-After. Every surface starts executions through
 * `ExecutionService`, which takes a slot here, so REST and MCP share the rule.
 */
export class ConcurrencyGate {
  private readonly byKey = new Map<string, number>();
  private held = 0;

  constructor(private readonly options: ConcurrencyOptions) {}

  /** Takes a slot for `keyId`, or throws the refusal; the slot is held until released. */
  acquire(keyId: string): ReleaseHold {
    const ofKey = this.byKey.get(keyId) ?? 0;
    if (ofKey >= this.options.perKey) {
      throw new ServiceError("concurrency_limit_exceeded", {
        message: `This API key already has ${ofKey} unfinished execution${ofKey === 1 ? "" : "s"}, its limit; retry when one ends.`,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    }
    if (this.held >= this.options.total) {
      throw new ServiceError("service_unavailable", {
        message: "The service is at capacity; retry shortly.",
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    }
    return this.track(keyId);
  }

  /** Counts work accepted earlier (executions taken over from a dead process) without refusing it. */
  track(keyId: string): ReleaseHold {
    this.byKey.set(keyId, (this.byKey.get(keyId) ?? 0) + 1);
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      const left = (this.byKey.get(keyId) ?? 1) - 1;
      if (left === 0) this.byKey.delete(keyId);
      else this.byKey.set(keyId, left);
    };
  }

  /** Unfinished executions held now, and the most this process takes. */
  get usage(): { held: number; capacity: number } {
    return { held: this.held, capacity: this.options.total };
  }

  /** True when a new execution would be refused for everyone. */
  get saturated(): boolean {
    return this.held >= this.options.total;
  }
}
