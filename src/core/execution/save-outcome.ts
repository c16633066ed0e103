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
import type { ExecutionRecord, StoredExecution } from "./record.js";
import type { KeptExecution } from "./redacted-execution.js";
import { failedOutcome, type RunOutcome } from "./run-skill.js";
import { type HeldRecord, UnsavedOutcomes } from "./unsaved-outcomes.js";

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
      refusedUntilRestart: (err) => options.store.refusesUntilRestart(err),
      logger: options.logger,
    });
  }

  /**
   * Stores the outcome; resolves with the terminal record as stored, which is the answer.
   * `held`: the record the store holds of the execution until then (or how to ask it when
   * the outcome is given up), told to the operator if the outcome is refused and given up
   * (`UnsavedOutcomes`).
   */
  async record(
    execution: KeptExecution,
    outcome: RunOutcome,
    held: HeldRecord,
    endedAtMs = this.options.clock.now(),
  ): Promise<StoredExecution> {
    const { store, registry } = this.options;
    const ended = markFinished(execution, outcome, endedAtMs, registry);
    let stored: StoredExecution;
    try {
      stored = await saveOutcome(store.executions, ended);
    } catch (err) {
      if (isPermanentRefusal(err)) return this.recordUnstorable(execution, ended, err, held, endedAtMs);
      // The caller hears of the failure; the record is stored as soon as the store takes it.
      this.unsaved.add(ended, held);
      // Logged where every outage is, once the surface maps it (`Skillport.errorOf`).
      throw store.isOutage(err) ? outcomeNotStored(ended, err, store.refusesUntilRestart(err)) : err;
    }
    this.announce(stored);
    return stored;
  }

  /**
   * An outcome the store refused for good (`isPermanentRefusal`: its result would not
   * serialize): retrying would fail the same way and leave the record `running` for ever,
   * and the caller would get a 5xx for a skill that ran, and retry it (contract.md: a
   * failure is a record). The execution ends `failed` instead, its result dropped; the
   * refusal is logged for the operator. Only if that record is refused too is the error
   * thrown (and, in an outage, the failed record kept for retries).
   */
  private async recordUnstorable(
    execution: KeptExecution,
    ended: KeptExecution,
    err: unknown,
    held: HeldRecord,
    endedAtMs: number,
  ): Promise<StoredExecution> {
    const { store, registry, logger } = this.options;
    logger.error(
      { err, execution_id: ended.record.id, skill_id: ended.record.skill_id, status: ended.record.status },
      "the store refused an execution's terminal record; it is stored as failed instead",
    );
    const message = `The execution ended ${ended.record.status}, but its record could not be stored as it was; it ended failed instead.`;
    const failed = markFinished(
      execution,
      {
        ...failedOutcome("execution_failed", message, ended.record.latency_ms ?? 0),
        neverStarted: ended.record.started_at === null,
      },
      endedAtMs,
      registry,
    );
    let stored: StoredExecution;
    try {
      stored = await saveOutcome(store.executions, failed);
    } catch (again) {
      // The failed record is what can be stored: it is the one kept for the retries, and
      // the one the caller is told about (`ended` would be refused again on every retry).
      if (!store.isOutage(again)) throw again;
      this.unsaved.add(failed, held);
      throw outcomeNotStored(failed, again, store.refusesUntilRestart(again));
    }
    this.announce(stored);
    return stored;
  }

  /** Tries the outcomes still refused until `withinMs` has passed, then gives them up (see `UnsavedOutcomes.stop`). */
  stop(withinMs: number): Promise<void> {
    return this.unsaved.stop(withinMs);
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
 * Whether the store's refusal of a record would recur on every retry: a TypeError or a
 * RangeError is thrown by serializing what it was given (`JSON.stringify` of a bigint, a
 * cycle, a value nested too deep), not by the database, whose errors (an outage, a lost
 * connection) may pass and are retried.
 */
function isPermanentRefusal(err: unknown): boolean {
  return err instanceof TypeError || err instanceof RangeError;
}

/**
 * The answer to a caller whose execution ended but whose outcome the store could not take
 * (an outage): a 503 like any outage, but one that says what happened, by one rule: a
 * record with no start (`started_at` null) never ran, whatever ended it (a timeout, a cancel
 * or a shutdown while it waited for a worker thread or in the queue, or a cancel that met
 * the store refusing its start). One that ran says so: a client repeating the request
 * without its Idempotency-Key would run it again, which "retry later" alone would invite.
 * One that never ran must not claim it did; cancelled, its canceller is told that the
 * cancellation is not recorded yet, and to repeat it unless it is by then. `untilRestart`:
 * the store refuses every write until the process restarts (`Store.refusesUntilRestart`),
 * so nothing is recorded before then, and what the restart finds may be older or nothing.
 */
function outcomeNotStored(execution: StoredExecution, cause: unknown, untilRestart: boolean): ServiceError {
  return new ServiceError("service_unavailable", {
    message: notStoredMessage(execution.record, untilRestart),
    retryAfterSeconds: STORE_OUTAGE_RETRY_AFTER_SECONDS,
    cause,
  });
}

function notStoredMessage({ id, status, started_at }: ExecutionRecord, untilRestart: boolean): string {
  const shown = `GET /v1/executions/${id}`;
  // After a lost database file the restart finds no record of it, after a lost WAL the
  // one stored before: only what holds in both is said. Likewise for a stop: a sync run's
  // running record is saved alongside the run, and may have been refused too.
  const store = untilRestart
    ? "the store takes no record until the service restarts"
    : "the store is unavailable";
  const yet = untilRestart ? "" : " yet";
  const later = untilRestart
    ? `it cannot be recorded: after the restart, ${shown} shows only what was stored of it before, if anything`
    : `it is recorded as soon as the store is back (${shown}), unless this process stops first (its record is then failed, execution_interrupted, or missing if the store took none of it)`;
  if (started_at !== null) {
    return (
      `The execution ${id} ran and ended ${status}, but ${store} and could not record it${yet}; ${later}. ` +
      (untilRestart
        ? "Repeating the request after the restart may run the skill again, even with the same Idempotency-Key."
        : "Repeating the request runs the skill again unless it carries the same Idempotency-Key.")
    );
  }
  if (status === "cancelled") {
    return untilRestart
      ? `The execution ${id} was cancelled before it started, but ${store} and could not record the cancellation: ` +
          `after the restart, ${shown} shows only what was stored of it before, if anything (a queued execution then runs): ` +
          "repeat the cancel after the restart unless it shows the execution ended."
      : `The execution ${id} was cancelled before it started, but ${store} and could not record the cancellation yet: ` +
          `repeat the cancel after Retry-After, unless ${shown} shows it cancelled by then ` +
          "(this process records it as soon as the store is back, unless it stops first).";
  }
  return `The execution ${id} ended ${status} before it started (the skill never ran), but ${store} and could not record it${yet}; ${later}.`;
}
