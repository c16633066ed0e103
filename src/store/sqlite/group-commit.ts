import type { Logger } from "../../core/logger.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import { StoreFileLostError } from "./store-files.js";
import type { StoreHealth } from "./store-health.js";

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/** A write waiting for the next batch. */
type Write = () => void;

/** Makes every commit made so far durable (an fdatasync of the WAL file). */
export type SyncWal = () => Promise<void>;

/**
 * Group commit: writes requested in the same event-loop turn, or while an fsync runs,
 * are applied in ONE transaction, and one fsync makes a whole batch durable. Each
 * awaited write resolves only after its batch is committed AND on disk; a failed batch
 * rejects exactly the writes it held, and the next batch starts clean.
 *
 * The fsync is not SQLite's: the connection runs `synchronous=NORMAL` (a commit writes
 * its WAL frames but does not sync them) and `syncWal` fdatasyncs the WAL file on
 * libuv's thread pool. That is exactly what `synchronous=FULL` does at each commit, but
 * off the event loop: requests keep being served while the disk works, and their writes
 * are committed together when it ends, to share the next fsync.
 *
 * Writes carry a coalescing key: a later write with the same key replaces the earlier
 * one in the same batch (the last state of an execution is the only one worth writing),
 * while every caller still waits for the commit that includes the final state.
 */
export class GroupCommit {
  /** Totals for metrics: committed batches, the writes in them after coalescing, failures, fsyncs. */
  readonly stats = { batches: 0, writes: 0, failedBatches: 0, syncs: 0 };
  private pending = new Map<string, Write>();
  private waiters: Waiter[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private closed = false;
  /** Committed writes waiting for the next fsync, and the fsync under way (if any). */
  private unsynced: Waiter[] = [];
  private syncing: Promise<void> | undefined;
  private readonly applyBatch: Database.Transaction<(writes: Iterable<Write>) => void>;

  /** @param health told how each batch went: committed and on disk, or failed (for readiness). */
  constructor(
    db: Database.Database,
    private readonly logger: Logger,
    private readonly syncWal: SyncWal,
    private readonly health?: StoreHealth,
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

  /** Flushes and waits until everything committed is on disk, then refuses further writes. */
  async close(): Promise<void> {
    this.flush();
    this.closed = true;
    while (this.syncing) await this.syncing;
    // Commits made outside the group commit (keys, idempotency entries) are durable too.
    await this.syncWal();
  }

  private schedule(): void {
    // While an fsync runs, writes wait for it to end and are committed together then (see
    // `startSync`). Otherwise setImmediate runs after the I/O callbacks of this loop
    // iteration, so writes from every request handled in the same turn share one batch.
    if (this.syncing) return;
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
      this.health?.failed(err);
      // The transaction rolled back as a whole; detached writes in it are lost.
      this.logger.warn({ err, writes: batch.size }, "a group commit failed and was rolled back");
      for (const waiter of waiters) waiter.reject(err);
      return;
    }
    this.stats.batches++;
    this.stats.writes += batch.size;
    this.unsynced.push(...waiters);
    this.startSync();
  }

  /**
   * One fsync at a time; it covers every commit made before it starts. Commits made
   * while it runs wait for the next one, started as soon as it ends.
   */
  private startSync(): void {
    if (this.syncing || this.unsynced.length === 0) return;
    const covered = this.unsynced;
    this.unsynced = [];
    this.syncing = this.syncWal()
      .then(
        () => {
          this.stats.syncs++;
          this.health?.succeeded();
          for (const waiter of covered) waiter.resolve();
        },
        (err: unknown) => {
          this.health?.failed(err);
          // The writes are committed but may not survive a power cut: their callers must
          // not be told they are durable.
          // A lost file is logged once, where it is found (`StoreFiles`), not for each batch.
          if (!(err instanceof StoreFileLostError)) {
            this.logger.error({ err, writes: covered.length }, "fsync of the WAL failed");
          }
          for (const waiter of covered) waiter.reject(err);
        },
      )
      .finally(() => {
        this.syncing = undefined;
        // Writes queued during the fsync are committed now, in one transaction, and share
        // the next fsync. Committing them one loop turn at a time instead would write
        // every page they touch (the table's and each index's) once per turn, and the
        // next fsync would have to flush all of those pages.
        if (this.pending.size > 0) this.commit();
        else this.startSync();
      });
  }
}
