// The saves of one running record, made while its run goes on (it starts, waits for a
// worker thread, starts on one). A store may commit concurrent saves of one record in any
// order (PostgreSQL's `SaveBatcher`): so they go one after the other, and none once the
// run has ended (its terminal record is stored then). Kept apart from `ExecutionRunner` so
// that its run reads as steps.

import type { KeptExecution } from "./redacted-execution.js";
import type { RecordHeld } from "./unsaved-outcomes.js";

/** One running record's saves, in order, none after the end (see the file's header). */
export class RunningRecordSaves {
  private saved: Promise<void> = Promise.resolve();
  private ended = false;
  /** Whether the store has taken a running record of the execution (before the run, or a save here). */
  private taken: boolean;
  /** Saves made here that have had no answer yet. */
  private unanswered = 0;

  /**
   * `save` stores a running record; `onFailure` hears a save that failed (the run goes on);
   * `storedAlready`: the store took the record running before the run began.
   */
  constructor(
    private readonly save: (running: KeptExecution) => Promise<unknown>,
    private readonly onFailure: (err: unknown) => void,
    storedAlready: boolean,
  ) {
    this.taken = storedAlready;
  }

  /** Saves the record at once, after no other (the first save of a sync execution's record). */
  saveNow(running: KeptExecution): void {
    this.saved = this.tracked(running);
  }

  /** Saves the record once the saves before it are done, unless the run has ended by then. */
  change(running: KeptExecution): void {
    this.saved = this.saved.then(() => (this.ended ? undefined : this.tracked(running)));
  }

  /** The run ended: saves still to come are dropped (the terminal record says it all). */
  end(): void {
    this.ended = true;
  }

  /**
   * What the store holds of the execution as far as its running saves tell, asked when its
   * outcome is given up (a save may be answered after the outcome was refused: a store
   * commits one record's saves together, or in any order): running once one was taken; none
   * while every one was refused (a sync run stores its first record alongside the run, and
   * its terminal save most often replaces it in the same commit, refused with it).
   */
  held(): RecordHeld {
    if (this.taken) return "running";
    return this.unanswered > 0 ? "running-or-none" : "none";
  }

  private tracked(running: KeptExecution): Promise<void> {
    this.unanswered++;
    return this.save(running).then(
      () => {
        this.unanswered--;
        this.taken = true;
      },
      (err: unknown) => {
        this.unanswered--;
        this.onFailure(err);
      },
    );
  }
}
