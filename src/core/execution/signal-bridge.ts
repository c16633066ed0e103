import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { SignalChannel, Store, StoreSignal } from "../ports.js";
import { RepeatedWarning } from "../repeated-warning.js";
import { type ExecutionEvent, type ExecutionEvents, progressEvent } from "./events.js";
import type { StoredExecution } from "./record.js";
import { shownProgress } from "./skill-progress.js";

export interface SignalBridgeOptions {
  signals: SignalChannel;
  events: ExecutionEvents;
  store: Store;
  /** This process's runner id: signals are stamped with it, and its own are ignored. */
  runnerId: string;
  /** Cancels an execution if this process holds it (`ExecutionRunner.cancelLocal`). */
  cancelLocal: (executionId: string) => Promise<StoredExecution | undefined>;
  logger: Logger;
  /** When each failure to send a signal is (`RepeatedWarning`); the system's clock by default. */
  clock?: Clock;
}

/**
 * Joins this process's execution events to the other processes sharing the store: shared
 * events go out as small signals; signals from others become events for whoever follows
 * that execution here (a status is re-read from the store, so signals never carry
 * records), and a cancel signal cancels the execution if this process holds it.
 */
export class SignalBridge {
  private readonly unsubscribe: () => void;

  constructor(private readonly options: SignalBridgeOptions) {
    const { events, signals } = options;
    // Every event of every execution fails while the store is out of reach: one line each
    // would flood the log.
    const notSent = new RepeatedWarning(options.logger, "could not signal an execution event", {
      clock: options.clock,
    });
    events.outbound = (executionId, event) => {
      signals.publish(this.toSignal(executionId, event)).catch((err: unknown) => {
        // Others still find the change by reading the store (ExecutionQueries polls).
        notSent.warn({ err, execution_id: executionId });
      });
    };
    this.unsubscribe = signals.subscribe((signal) => this.receive(signal));
  }

  /** Asks every process to cancel the execution; the one holding it does. */
  requestCancel(executionId: string): Promise<void> {
    return this.options.signals.publish({ type: "cancel", executionId, from: this.options.runnerId });
  }

  close(): void {
    this.options.events.outbound = undefined;
    this.unsubscribe();
  }

  private toSignal(executionId: string, event: ExecutionEvent): StoreSignal {
    const from = this.options.runnerId;
    if (event.type === "status") return { type: "status", executionId, status: event.record.status, from };
    return { type: "progress", executionId, update: shownProgress(event), from };
  }

  private receive(signal: StoreSignal): void {
    const { events, store, logger } = this.options;
    if (signal.from === this.options.runnerId) return;
    const id = signal.executionId;
    switch (signal.type) {
      case "cancel":
        this.options.cancelLocal(id).catch((err: unknown) => {
          // An outage is the operator's to see once (the store logs it) and the canceller
          // is told to repeat the cancel; anything else is a bug.
          const level = store.isOutage(err) ? "warn" : "error";
          logger[level]({ err, execution_id: id }, "could not cancel an execution on request");
        });
        return;
      case "progress":
        if (events.isFollowed(id)) events.deliver(id, progressEvent(id, signal.update));
        return;
      case "status":
        if (!events.isFollowed(id)) return;
        store.executions.get(id).then(
          (found) => {
            if (found) events.deliver(id, { type: "status", record: found.record });
          },
          (err: unknown) => logger.warn({ err, execution_id: id }, "could not read a signalled execution"),
        );
        return;
    }
  }
}
