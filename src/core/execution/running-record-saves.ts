// The saves of one running record, made while its run goes on (it starts, waits for a
// worker thread, starts on one). A store may commit concurrent saves of one record in any
// order (PostgreSQL's `SaveBatcher`): so they go one after the other, and none once the
// run has ended (its terminal record is stored then). Kept apart from `ExecutionRunner` so
// that its run reads as steps.

import type { KeptExecution } from "./redacted-execution.js";

/** One running record's saves, in order, none after the end (see the file's header). */
export class RunningRecordSaves {
  private saved: Promise<void> = Promise.resolve();
  private ended = false;

  /** `save` stores a running record; `onFailure` hears a save that failed (the run goes on). */
  constructor(
    private readonly save: (running: KeptExecution) => Promise<unknown>,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  /** Saves the record at once, after no other (the first save of a sync execution's record). */
  saveNow(running: KeptExecution): void {
    this.saved = this.save(running).then(() => {}, this.onFailure);
  }

  /** Saves the record once the saves before it are done, unless the run has ended by then. */
  change(running: KeptExecution): void {
    this.saved = this.saved.then(() =>
      this.ended ? undefined : this.save(running).then(() => {}, this.onFailure),
    );
  }

  /** The run ended: saves still to come are dropped (the terminal record says it all). */
  end(): void {
    this.ended = true;
  }
}
