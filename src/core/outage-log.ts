import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";

/** How often a store outage is logged at most while it lasts. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * The warning that the store cannot serve, with the driver's error that only the log sees:
 * at most once per `OUTAGE_LOG_INTERVAL_MS`, with the count answered since. An outage
 * refuses every request, so one line each would flood the log.
 */
export class OutageLog {
  private loggedAt = Number.NEGATIVE_INFINITY;
  private notLogged = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** An answer `service_unavailable` because of `err`, the store driver's error. */
  note(err: unknown): void {
    const now = this.clock.now();
    if (now - this.loggedAt < OUTAGE_LOG_INTERVAL_MS) {
      this.notLogged++;
      return;
    }
    this.logger.warn(
      { err, answered_since_last_line: this.notLogged },
      "the store is unavailable: answered service_unavailable",
    );
    this.loggedAt = now;
    this.notLogged = 0;
  }
}
