import type Database from "better-sqlite3";
import type { Logger } from "../../core/logger.js";

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/** A write waiting for the next batch. */
type Write = () => void;

/**
 * Group commit: writes requested in the same event-loop turn are applied in ONE
 * transaction, so one fsync (the costly part of a durable commit) is shared by all of
 * them. Each awaited write resolves only after its batch committed, and a failed batch
 * rejects exactly the writes it held; the next batch starts clean.
 *
 * Writes carry a coalescing key: a later write with the same key replaces the earlier
 * one in the same batch (the last state of an execution is the only one worth writing),
 * while every caller still waits for the commit that includes the final state.
 *
 * better-sqlite3 is synchronous, so a commit never overlaps the event loop: writes
 * requested while one batch commits simply land in the next turn's batch.
 */
export class GroupCommit {
  /** Totals for metrics: committed batches, the writes in them after coalescing, failures. */
  readonly stats = { batches: 0, writes: 0, failedBatches: 0 };
  private pending = new Map<string, Write>();
  private waiters: Waiter[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private closed = false;
  private readonly applyBatch: Database.Transaction<(writes: Iterable<Write>) => void>;

  constructor(
    db: Database.Database,
    private readonly logger: Logger,
  ) {
    this.applyBatch = db.transaction((writes: Iterable<Write>) => {
      for (const write of writes) write();
    });
  }

  /** Queues a write and resolves once it is committed. */
  write(coalesceKey: string, write: Write): Promise<void> {
    if (this.closed) return Promise.reject(new Error("The store is closed."));
    return new Promise<void>((resolve, reject) => {
      this.pending.set(coalesceKey, write);
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /**
   * Queues a write nobody waits for (e.g. a key's last use). It rides along with the next
   * batch; if that batch fails the write is dropped and logged, as it is not worth an
   * error anywhere else.
   */
  writeDetached(coalesceKey: string, write: Write): void {
    if (this.closed) return;
    this.pending.set(coalesceKey, write);
    this.schedule();
  }

  /** Commits whatever is pending now (used by `close`). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.commit();
  }

  /** Flushes, then refuses further writes. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private schedule(): void {
    // setImmediate runs after the I/O callbacks of this loop iteration, so writes from
    // every request handled in the same turn share one batch.
    this.scheduled ??= setImmediate(() => this.commit());
  }

  private commit(): void {
    this.scheduled = undefined;
    const batch = this.pending;
    const waiters = this.waiters;
    if (batch.size === 0) return;
    this.pending = new Map();
    this.waiters = [];
    try {
      // IMMEDIATE takes the write lock up front, waiting (busy_timeout) behind another
      // process's writer instead of failing halfway through the batch.
      this.applyBatch.immediate(batch.values());
    } catch (err) {
      this.stats.failedBatches++;
      // The transaction rolled back as a whole; detached writes in it are lost.
      this.logger.warn({ err, writes: batch.size }, "a group commit failed and was rolled back");
      for (const waiter of waiters) waiter.reject(err);
      return;
    }
    this.stats.batches++;
    this.stats.writes += batch.size;
    for (const waiter of waiters) waiter.resolve();
  }
}
