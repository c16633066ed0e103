import { type Clock, systemClock } from "./clock.js";
import type { Logger } from "./logger.js";

/** How often a warning that a fault repeats is written at `warn` at most. */
export const REPEATED_WARNING_INTERVAL_MS = 10_000;

/**
 * A warning that a fault repeats at every call it fails, written at `warn` at most once per
 * `REPEATED_WARNING_INTERVAL_MS` with the count of those left out since the last one
 * (`countField`), and otherwise at `debug`. A store outage fails every request, every
 * execution event sent to the other replicas and every reconnection a second: one `warn`
 * line each buried the log in lines saying the same thing, hundreds a second on a busy
 * replica, when an operator reads it most.
 */
export class RepeatedWarning {
  private loggedAt = Number.NEGATIVE_INFINITY;
  private notLogged = 0;

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly options: { clock?: Clock; countField?: string } = {},
  ) {}

  /** One more time the fault happened, with its fields (the driver's error, the execution). */
  warn(fields: object): void {
    const now = (this.options.clock ?? systemClock).now();
    if (now - this.loggedAt < REPEATED_WARNING_INTERVAL_MS) {
      this.notLogged++;
      this.logger.debug(fields, this.message);
      return;
    }
    this.logger.warn(
      { ...fields, [this.options.countField ?? "repeats_not_logged"]: this.notLogged },
      this.message,
    );
    this.loggedAt = now;
    this.notLogged = 0;
  }

  /** The fault is over: its next occurrence is written at `warn` at once. */
  reset(): void {
    this.loggedAt = Number.NEGATIVE_INFINITY;
    this.notLogged = 0;
  }
}
