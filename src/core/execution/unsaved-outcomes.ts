import type { Logger } from "../logger.js";
import type { StoredExecution } from "./record.js";
import type { KeptExecution } from "./redacted-execution.js";

/** The first retry waits this long, each next one twice as long… */
const FIRST_RETRY_MS = 1_000;
/** …up to this. */
const MAX_RETRY_MS = 30_000;

export interface UnsavedOutcomesOptions {
  /** Stores a terminal record; resolves with the one stored (`saveOutcome`). */
  save(execution: KeptExecution): Promise<StoredExecution>;
  /**
   * Told the record stored once the store takes the save at last (the runner announces its
   * terminal status then): the one given, or one another process stored first.
   */
  onSaved(stored: StoredExecution): void;
  logger: Logger;
}

/**
 * Terminal records the store refused (a database out of reach, a full disk), stored again
 * until it takes them. The execution has ended; without this its record would stay
 * `running` for as long as this process lives, its outcome lost, since recovery takes over
 * only the executions of processes that died. `stop` makes a last attempt and gives up:
 * the next start ends what is left `execution_interrupted`.
 */
export class UnsavedOutcomes {
  /** By execution id: the record to store and the timer of its next attempt. */
  private readonly retries = new Map<string, { execution: KeptExecution; timer: NodeJS.Timeout }>();

  constructor(private readonly options: UnsavedOutcomesOptions) {}

  add(execution: KeptExecution): void {
    this.schedule(execution, FIRST_RETRY_MS);
  }

  /** Cancels the retries, after one last attempt each. */
  async stop(): Promise<void> {
    const left = [...this.retries.values()].map(({ execution, timer }) => {
      clearTimeout(timer);
      return execution;
    });
    this.retries.clear();
    const attempts = await Promise.allSettled(left.map((execution) => this.options.save(execution)));
    const lost = attempts.filter((attempt) => attempt.status === "rejected").length;
    if (lost > 0)
      this.options.logger.warn({ count: lost }, "stopped with terminal records the store refused");
  }

  private schedule(execution: KeptExecution, delayMs: number): void {
    const { id } = execution.record;
    const timer = setTimeout(() => {
      this.options.save(execution).then(
        (stored) => {
          this.retries.delete(id);
          this.options.logger.info({ execution_id: id }, "stored an execution's outcome at last");
          this.options.onSaved(stored);
        },
        () => {
          // Unless `stop` came meanwhile.
          if (this.retries.get(id)?.timer === timer) {
            this.schedule(execution, Math.min(delayMs * 2, MAX_RETRY_MS));
          }
        },
      );
    }, delayMs);
    // A retry never keeps the process alive on its own.
    timer.unref();
    this.retries.set(id, { execution, timer });
  }
}
