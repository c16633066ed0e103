// This process's async executions between being accepted and running: a bounded queue
// whose slots are shared fairly between owners (`WorkQueue`, `AsyncSlot`), and the
// queued executions whose start the store refused, tried again after a beat. Kept apart
// from `ExecutionRunner`, which runs what this hands it.

import { ServiceError } from "../errors.js";
import type { ReleaseHold } from "../limits/concurrency-gate.js";
import type { Logger } from "../logger.js";
import type { Store } from "../ports.js";
import { AsyncSlot } from "./async-slot.js";
import type { RunHooks } from "./execution-runner.js";
import { NotStarted, StartRetries } from "./queued-start.js";
import type { StoredExecution } from "./record.js";
import { WorkQueue } from "./work-queue.js";

/** An async execution in the queue, with what its run needs. */
export interface QueuedRun {
  execution: StoredExecution;
  hooks: RunHooks;
  /** Queued in the store and this runner's, or stored running already (taken from the store's waiting ones). */
  begin: "queued" | "stored";
  /** Gives back the execution's concurrency hold once it ended. */
  release: ReleaseHold;
  /** Its slot of the async queue, and what it does when the slot is asked back. */
  slot: AsyncSlot;
}

export interface AsyncQueueOptions {
  /** Async executions running at once in this process. */
  concurrency: number;
  /** How long another owner's execution waits before a slot is taken back for it (`WorkQueue`). */
  reclaimAfterMs?: number;
  /** How long a queued execution whose start the store refused waits before it is queued again. */
  startRetryMs: number;
  store: Store;
  logger: Logger;
  /** Runs one holding its slot; rejects with `NotStarted` when the store refused its start. */
  run: (queued: QueuedRun) => Promise<unknown>;
}

/** The async executions waiting here (see the file's header). */
export class AsyncQueue {
  private readonly queue: WorkQueue<QueuedRun>;
  /** Holding their key's concurrency hold meanwhile. */
  private readonly startRetries = new StartRetries<QueuedRun>();
  private stopped = false;

  constructor(private readonly options: AsyncQueueOptions) {
    const { logger } = options;
    this.queue = new WorkQueue<QueuedRun>(
      options.concurrency,
      (queued, releaseSlot) => this.runQueued(queued, releaseSlot),
      {
        reclaim: ({ execution, slot }, reclaim) => {
          logger.warn(
            {
              execution_id: execution.record.id,
              owner: execution.owner,
              held_ms: Math.round(reclaim.heldMs),
            },
            "an async execution's slot is asked back for another owner's waiting execution",
          );
          slot.reclaim(reclaim);
        },
        idle: ({ slot }) => slot.idle,
        reclaimAfterMs: options.reclaimAfterMs,
      },
    );
  }

  /** Queues an async execution for a slot of this runner (see `WorkQueue`). */
  push(
    execution: StoredExecution,
    begin: QueuedRun["begin"],
    release: ReleaseHold,
    hooks: RunHooks = {},
  ): void {
    const queued: QueuedRun = { execution, hooks, begin, release, slot: new AsyncSlot() };
    if (this.stopped && begin === "stored") {
      // Taken from the store by a beat under way as the process stops: stored running and
      // this runner's, it runs now, in the room that beat saw free, and the stop waits for
      // it as for the others. Left waiting, it would stay running in the store until a peer
      // or the next process ended it interrupted, never having run.
      void this.runQueued(queued, () => {});
      return;
    }
    this.queue.push(execution.record.id, execution.owner, queued);
  }

  /** Whether one waits here, not started (for a slot, or to be started again). */
  holds(id: string): boolean {
    return this.queue.has(id) || this.startRetries.has(id);
  }

  /** Takes out one that has not started (waiting for a slot, or to be started again); undefined otherwise. */
  take(id: string): QueuedRun | undefined {
    return this.queue.remove(id) ?? this.startRetries.take(id);
  }

  /** Drops one waiting for a slot, giving back its key's concurrency hold (another process ended or took it). */
  letGo(id: string): void {
    this.queue.remove(id)?.release();
  }

  /** The ids of those waiting for a slot, in no particular order. */
  waitingIds(): string[] {
    return this.queue.waitingIds();
  }

  /** How many more could start at once (free slots not claimed by waiting ones). */
  get room(): number {
    return this.queue.room;
  }

  /** Those not started yet. */
  get pending(): number {
    return this.queue.pending + this.startRetries.size;
  }

  /**
   * Starts no more (shutting down): running ones go on; the others stay queued in the
   * store for the next process, those waiting for a start again giving back their holds now.
   */
  stop(): void {
    this.stopped = true;
    // A slot freed from now on must not start a queued execution: the process would
    // leave it running, and the next one would end it interrupted instead of running it.
    this.queue.stopStarting();
    for (const queued of this.startRetries.takeAll()) queued.release();
  }

  private async runQueued(queued: QueuedRun, releaseSlot: () => void): Promise<void> {
    queued.slot.granted(releaseSlot);
    try {
      await this.options.run(queued);
    } catch (err) {
      // Still queued in the store: it keeps its key's concurrency hold until it runs.
      if (err instanceof NotStarted) return this.startAgainLater(queued, err.cause);
      this.logFailure(queued.execution, err);
    }
    queued.release();
  }

  /**
   * A queued execution whose start the store refused stays queued in the store (this
   * runner's, so no other takes it before a beat, and no look for orphans ever): it is
   * queued here again after a beat, until the store takes its start. A stop meanwhile lets
   * go of it, queued in the store for the next process.
   */
  private startAgainLater(queued: QueuedRun, cause: unknown): void {
    const { store, logger, startRetryMs } = this.options;
    if (this.stopped) {
      queued.release();
      return;
    }
    const log = store.isOutage(cause) ? logger.warn : logger.error;
    const fields = { err: cause, execution_id: queued.execution.record.id };
    log.call(logger, fields, "could not start a queued execution; trying again in a beat");
    this.startRetries.later(queued.execution.record.id, queued, startRetryMs, (due) =>
      this.push(due.execution, due.begin, due.release, due.hooks),
    );
  }

  /** An async execution's run failed after it started: its outcome could not be stored (or read back). */
  private logFailure(execution: StoredExecution, err: unknown): void {
    const { logger } = this.options;
    const fields = { err, execution_id: execution.record.id };
    // An outage: the outcome is stored as soon as the store is back (`UnsavedOutcomes`).
    if (err instanceof ServiceError && err.code === "service_unavailable") {
      logger.warn(fields, "could not store an async execution's outcome yet: the store is unavailable");
    } else {
      logger.error(fields, "an async execution ended, but its outcome could not be stored");
    }
  }
}
