import type pg from "pg";
import type { ExecutionRow } from "../execution-row.js";
import { executionUpsert } from "./execution-upsert.js";

/** Rows per statement at most (PostgreSQL takes up to 65 535 parameters). */
const MAX_ROWS = 500;

interface Pending {
  row: ExecutionRow;
  terminal: boolean;
  waiters: { resolve(written: boolean): void; reject(err: unknown): void }[];
}

/**
 * Statements in flight at once. Saves of one id may then commit out of order, which is
 * harmless: a record's non-terminal saves are never in flight together (queued records
 * are committed before anything else touches them, and the runner saves a running record
 * again, when its run waits for a worker thread and when it gets one, only once the
 * previous save committed), and the upsert never replaces a terminal record, so a late
 * `running` write cannot undo a finished one.
 */
const MAX_IN_FLIGHT = 4;

/**
 * Group commit for PostgreSQL: the saves requested in one event-loop turn go out as one
 * multi-row upsert (one round trip, one commit), and while statements are in flight the
 * next turns' saves gather for the next one. Each save resolves once its statement
 * committed; a failed statement rejects exactly the saves it held. Two saves of one id
 * in a batch are written once, the later one, unless the earlier was terminal (a
 * terminal record is final).
 */
export class SaveBatcher {
  private pending = new Map<string, Pending>();
  private scheduled = false;
  private inFlight = 0;
  private idle: (() => void)[] = [];

  constructor(private readonly pool: pg.Pool) {}

  /** Resolves false when the row stored was terminal already, so this one was not written. */
  save(row: ExecutionRow, terminal: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      const existing = this.pending.get(row.id);
      if (!existing) {
        this.pending.set(row.id, { row, terminal, waiters: [waiter] });
      } else {
        if (!existing.terminal) {
          existing.row = row;
          existing.terminal = terminal;
        }
        existing.waiters.push(waiter);
      }
      this.kick();
    });
  }

  /** Resolves once every save issued so far is written (or failed). */
  flush(): Promise<void> {
    if (this.pending.size === 0 && this.inFlight === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private kick(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  /** Sends one batch of what is pending; when it settles, sends the next or reports idle. */
  private send(): void {
    if (this.pending.size === 0) {
      this.settleIdle();
      return;
    }
    const batch: Pending[] = [];
    for (const [id, entry] of this.pending) {
      batch.push(entry);
      this.pending.delete(id);
      if (batch.length >= MAX_ROWS) break;
    }
    this.inFlight++;
    this.write(batch.map((entry) => entry.row))
      .then(
        (written) => {
          for (const entry of batch) {
            for (const waiter of entry.waiters) waiter.resolve(written.has(entry.row.id));
          }
        },
        (err: unknown) => {
          for (const entry of batch) for (const waiter of entry.waiters) waiter.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        if (this.pending.size > 0) this.kick();
        else this.settleIdle();
      });
    if (this.pending.size > 0) this.kick();
  }

  private settleIdle(): void {
    if (this.pending.size > 0 || this.inFlight > 0 || this.scheduled) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Writes the rows; resolves with the ids written (a terminal row stored refuses its update). */
  private async write(rows: ExecutionRow[]): Promise<Set<string>> {
    const { rows: written } = await this.pool.query<{ id: string }>({
      // One prepared statement per batch size that occurs; most batches are small.
      name: rows.length <= 8 ? `execution-save-${rows.length}` : undefined,
      ...executionUpsert(rows),
    });
    return new Set(written.map((row) => row.id));
  }
}
