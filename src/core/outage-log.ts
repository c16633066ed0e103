import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import { RepeatedWarning } from "./repeated-warning.js";

/** What the runner's heartbeat tells of the store: it runs every few seconds, traffic or not. */
export interface StoreWatch {
  /** A store call landed: ends the outage seen, if any. */
  served(): void;
  /** A store call failed as an outage (`Store.isOutage`), without a request to answer. */
  failed(): void;
}

/**
 * The store's outages as the log and `/metrics` see them. The warning that the store cannot
 * serve, with the driver's error that only the log sees: a `RepeatedWarning`, with the count
 * answered since the last one. An outage refuses every request, so one line each would
 * flood the log. And once a store call lands again (the heartbeat's,
 * `served`), one line saying the store is back, for how long it was not and how many
 * requests it cost, as Redis has (otherwise the end of an outage is
 * seen only as the absence of new warnings).
 */
export class OutageLog implements StoreWatch {
  private readonly unavailable: RepeatedWarning;
  /** When the outage under way was first seen (Unix ms); undefined while the store serves. */
  private downSinceMs: number | undefined;
  /** Requests answered `service_unavailable` since `downSinceMs`. */
  private answeredDown = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.unavailable = new RepeatedWarning(logger, "the store is unavailable: answered service_unavailable", {
      clock,
      countField: "answered_since_last_line",
    });
  }

  /** False from a store call that failed as an outage until one lands again (`skillport_store_up`). */
  get storeUp(): boolean {
    return this.downSinceMs === undefined;
  }

  /** An answer `service_unavailable` because of `err`, the store driver's error. */
  note(err: unknown): void {
    const now = this.clock.now();
    this.downSinceMs ??= now;
    this.answeredDown++;
    this.unavailable.warn({ err });
  }

  failed(): void {
    this.downSinceMs ??= this.clock.now();
  }

  served(): void {
    if (this.downSinceMs === undefined) return;
    const unavailableMs = this.clock.now() - this.downSinceMs;
    this.logger.info(
      { unavailable_ms: unavailableMs, answered_service_unavailable: this.answeredDown },
      `the store is back: it was unavailable for ${Math.round(unavailableMs / 1000)} s, and ${this.answeredDown} requests were answered service_unavailable meanwhile`,
    );
    this.downSinceMs = undefined;
    this.answeredDown = 0;
    // The next outage is logged as it begins.
    this.unavailable.reset();
  }
}
