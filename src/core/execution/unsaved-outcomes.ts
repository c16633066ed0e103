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
  /**
   * True when the store will refuse the save on every try until the process restarts
   * (`Store.refusesUntilRestart`): the outcome is then given up at once.
   */
  refusedUntilRestart(err: unknown): boolean;
  logger: Logger;
}

/**
 * What the store holds of an execution whose outcome it refused, as far as this process
 * knows: its record `queued` (an async run that ended before it started, e.g. cancelled
 * while waiting), `running` (a start the store took), `none` (a sync run whose every save
 * was refused: it stores its running record alongside the run, not before it), or
 * `running-or-none` (such a run's running record still had no answer).
 */
export type RecordHeld = "queued" | "running" | "none" | "running-or-none";

/** What the next start does with the execution `id`, its outcome given up, by what the store holds of it. */
const NEXT_START: Record<RecordHeld, (id: string) => string> = {
  running: () => "the next start records the execution failed (execution_interrupted)",
  // Start-up runs what is left queued, as a peer takes what waits: the store never heard
  // that this one ended, and nothing else could be written while it refused the outcome.
  queued: (id) =>
    `the store still holds it queued, so it RUNS whatever this line's status says: at the next start, or on another process sharing the store once the store takes writes again; if it must not run, cancel it (POST /v1/executions/${id}/cancel) as soon as the service answers, which stops it if it has begun`,
  none: () =>
    "the store took no record of it (each save was refused), so the next start knows nothing of it and this line is all that is left of it",
  "running-or-none": () =>
    "the next start records the execution failed (execution_interrupted) if the store took its running record (its save had no answer yet), and knows nothing of it if not",
};
/** The same after the store's files were lost: the files it opens lack what was stored since, or everything. */
const NEXT_START_AFTER_LOST_FILES =
  "the next start finds of the execution only what the files at the store's paths hold: nothing if the database file was deleted; otherwise its record as stored before, if there is one, which it records failed (execution_interrupted) if running and runs if queued (the store's error line on the lost file says which file was lost)";

/**
 * What the store holds of an execution, given when its outcome is refused or asked when it
 * is given up: a running record's save may be answered in between.
 */
export type HeldRecord = RecordHeld | (() => RecordHeld);

/** A refused terminal record, and what the store holds of its execution meanwhile. */
interface HeldOutcome {
  execution: KeptExecution;
  held: HeldRecord;
}

/** While the process stops, the outcomes still refused are tried again this often. */
const STOP_RETRY_MS = 250;

/**
 * Terminal records the store refused (a database out of reach, a full disk), stored again
 * until it takes them. The execution has ended; without this its record would stay
 * `running` for as long as this process lives, its outcome lost, since recovery takes over
 * only the executions of processes that died. `stop` keeps trying until its deadline, then
 * gives up and logs each outcome it drops (a count alone let no operator mend the
 * records), with what the next start will make of the record the store holds (`RecordHeld`):
 * a running one ends `execution_interrupted`, saying only that the process stopped before
 * its outcome was recorded; a queued one runs; of none, nothing is known. An outcome the
 * store refuses until the process restarts is given up and logged at its first such
 * refusal, whether or not the process is stopping: no retry could store it.
 */
export class UnsavedOutcomes {
  /** By execution id: the record to store and the timer of its next attempt. */
  private readonly retries = new Map<string, { outcome: HeldOutcome; timer: NodeJS.Timeout }>();

  constructor(private readonly options: UnsavedOutcomesOptions) {}

  /** Keeps `execution`'s terminal record, refused while the store holds the record `held`. */
  add(execution: KeptExecution, held: HeldRecord): void {
    this.schedule({ execution, held }, FIRST_RETRY_MS);
  }

  /**
   * Tries the outcomes still refused again and again for `withinMs` (at least once each),
   * then gives up on those the store still refuses (at once on those it refuses until the
   * process restarts), each logged as an error with what the operator needs to mend its
   * record (`logGivenUp`).
   */
  async stop(withinMs: number): Promise<void> {
    let left = [...this.retries.values()].map(({ outcome, timer }) => {
      clearTimeout(timer);
      return outcome;
    });
    this.retries.clear();
    let timeUp = false;
    const deadline = setTimeout(() => {
      timeUp = true;
    }, withinMs);
    for (;;) {
      const attempts = await Promise.allSettled(left.map(({ execution }) => this.options.save(execution)));
      left = left.filter((outcome, i) => {
        const attempt = attempts[i];
        if (attempt?.status === "fulfilled") {
          this.savedAtLast(outcome.execution, attempt.value);
          return false;
        }
        if (this.options.refusedUntilRestart(attempt?.reason)) {
          this.logGivenUp(
            outcome,
            "stopped with an execution's outcome the store refuses until the process restarts",
            true,
          );
          return false;
        }
        return true;
      });
      if (left.length === 0 || timeUp) break;
      await new Promise((resolve) => setTimeout(resolve, STOP_RETRY_MS));
    }
    clearTimeout(deadline);
    for (const outcome of left) {
      this.logGivenUp(outcome, "stopped with an execution's outcome the store refused", false);
    }
  }

  /**
   * An outcome given up, logged as an error with what the operator needs to mend its
   * record: the execution, its skill and how it ended (never its params or result), and
   * what the next start will make of the record the store holds. `untilRestart`: the store refuses every write until
   * the process restarts, because its files were lost (SQLite): the next start then opens
   * files that may hold an older record of the execution or none (a deleted database file),
   * which the store's own error line on the lost file tells apart.
   */
  private logGivenUp({ execution: { record }, held }: HeldOutcome, why: string, untilRestart: boolean): void {
    const holds = typeof held === "function" ? held() : held;
    // A record the store never took is in no file, lost or not.
    const next =
      untilRestart && holds !== "none" ? NEXT_START_AFTER_LOST_FILES : NEXT_START[holds](record.id);
    this.options.logger.error(
      {
        execution_id: record.id,
        skill_id: record.skill_id,
        status: record.status,
        finished_at: record.finished_at,
        error_code: record.error?.code ?? null,
      },
      `${why}: it is lost, and ${next}; its real outcome is this line's status`,
    );
  }

  private savedAtLast(execution: KeptExecution, stored: StoredExecution): void {
    this.options.logger.info({ execution_id: execution.record.id }, "stored an execution's outcome at last");
    this.options.onSaved(stored);
  }

  private schedule(outcome: HeldOutcome, delayMs: number): void {
    const { execution } = outcome;
    const { id } = execution.record;
    const timer = setTimeout(() => {
      this.options.save(execution).then(
        (stored) => {
          this.retries.delete(id);
          this.savedAtLast(execution, stored);
        },
        (err: unknown) => {
          // Unless `stop` came meanwhile.
          if (this.retries.get(id)?.timer !== timer) return;
          if (this.options.refusedUntilRestart(err)) {
            this.retries.delete(id);
            this.logGivenUp(
              outcome,
              "gave up an execution's outcome the store refuses until the process restarts",
              true,
            );
          } else {
            this.schedule(outcome, Math.min(delayMs * 2, MAX_RETRY_MS));
          }
        },
      );
    }, delayMs);
    // A retry never keeps the process alive on its own.
    timer.unref();
    this.retries.set(id, { outcome, timer });
  }
}
