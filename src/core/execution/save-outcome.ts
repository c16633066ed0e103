// Ending an execution: storing its terminal record, and what is answered when another
// process ended it first or the store cannot take it. One rule for whoever ends an
// execution (its run, a cancel, a takeover), so that a new way of ending one cannot miss
// the race or the outage.

import type { Clock } from "../clock.js";
import { ServiceError, STORE_OUTAGE_RETRY_AFTER_SECONDS } from "../errors.js";
import type { Logger } from "../logger.js";
import type { ExecutionStore, Store } from "../ports.js";
import type { SkillRegistry } from "../skills/registry.js";
import type { ExecutionEvents } from "./events.js";
import { markFinished } from "./new-record.js";
import type { StoredExecution } from "./record.js";
import type { KeptExecution } from "./redacted-execution.js";
import type { RunOutcome } from "./run-skill.js";
import { UnsavedOutcomes } from "./unsaved-outcomes.js";

/**
 * A terminal record never changes, so the save of `ended` loses to one stored first (a
 * cancel recorded elsewhere while the run went on, or the run's outcome while a cancel was
 * on its way), and the record stored is the answer. Throws what the store throws; what a
 * caller does then (try again, or answer an outage) is the caller's.
 */
export async function saveOutcome(
  executions: ExecutionStore,
  ended: KeptExecution,
): Promise<StoredExecution> {
  if (await executions.save(ended)) return ended;
  return (await executions.get(ended.record.id)) ?? ended;
}

export interface OutcomeRecorderOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: ExecutionEvents;
  registry: SkillRegistry;
}

/**
 * The runner's outcomes: an execution that ran has ended whether or not the store takes
 * its record, so an outcome the store refused is stored again until it does
 * (`UnsavedOutcomes`), and the caller hears that it ran (`outcomeNotStored`).
 */
export class OutcomeRecorder {
  private readonly unsaved: UnsavedOutcomes;

  constructor(private readonly options: OutcomeRecorderOptions) {
    this.unsaved = new UnsavedOutcomes({
      save: (execution) => saveOutcome(options.store.executions, execution),
      // Another process may have ended it meanwhile: what is stored is announced.
      onSaved: (stored) => this.announce(stored),
      logger: options.logger,
    });
  }

  /** Stores the outcome; resolves with the terminal record as stored, which is the answer. */
  async record(
    execution: KeptExecution,
    outcome: RunOutcome,
    endedAtMs = this.options.clock.now(),
  ): Promise<StoredExecution> {
    const { store, registry } = this.options;
    const ended = markFinished(execution, outcome, endedAtMs, registry);
    let stored: StoredExecution;
    try {
      stored = await saveOutcome(store.executions, ended);
    } catch (err) {
      // The caller hears of the failure; the record is stored as soon as the store takes it.
      this.unsaved.add(ended);
      // Logged where every outage is, once the surface maps it (`Skillport.errorOf`).
      throw store.isOutage(err) ? outcomeNotStored(ended, err) : err;
    }
    this.announce(stored);
    return stored;
  }

  /** Gives up the outcomes still refused, after a last attempt each (see `UnsavedOutcomes.stop`). */
  stop(): Promise<void> {
    return this.unsaved.stop();
  }

  /** Tells the execution's followers its terminal record, as stored. */
  private announce(stored: StoredExecution): void {
    this.options.events.emit(
      stored.record.id,
      { type: "status", record: stored.record },
      { share: stored.async },
    );
  }
}

/**
 * The answer to a caller whose execution ended but whose outcome the store could not take
 * (an outage): a 503 like any outage, but one that says what happened. One that ran says
 * so: a client repeating the request without its Idempotency-Key would run it again, which
 * "retry later" alone would invite. One cancelled before it started (a cancel that met the
 * store refusing its start, or waiting for one) never ran: its canceller is told that the
 * cancellation is not recorded yet, and to repeat it unless it is by then.
 */
function outcomeNotStored(execution: StoredExecution, cause: unknown): ServiceError {
  const { id, status, started_at } = execution.record;
  const message =
    status === "cancelled" && started_at === null
      ? `The execution ${id} was cancelled before it started, but the store is unavailable and could not record the cancellation yet: ` +
        `repeat the cancel after Retry-After, unless GET /v1/executions/${id} shows it cancelled by then ` +
        "(this process records it as soon as the store is back)."
      : `The execution ${id} ran and ended ${status}, but the store is unavailable and could not record it yet; ` +
        `it is recorded as soon as the store is back (GET /v1/executions/${id}). ` +
        "Repeating the request runs the skill again unless it carries the same Idempotency-Key.";
  return new ServiceError("service_unavailable", {
    message,
    retryAfterSeconds: STORE_OUTAGE_RETRY_AFTER_SECONDS,
    cause,
  });
}
