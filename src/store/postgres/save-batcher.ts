import type pg from "pg";
import type { ExecutionRow } from "../execution-row.js";

const COLUMNS = [
  "id",
  "owner",
  "key_id",
  "skill_id",
  "status",
  "success",
  "error",
  "latency_ms",
  "result",
  "params",
  "async",
  "timeout_ms",
  "runner_id",
  "created_at",
  "started_at",
  "finished_at",
] as const satisfies readonly (keyof ExecutionRow)[];

/** Rows per statement at most (PostgreSQL takes up to 65 535 parameters). */
const MAX_ROWS = 500;

/**
 * The upsert's `where` keeps a terminal record from ever changing again (contract.md,
 * "Execution record"), even when a runner judged gone wakes up and saves its own outcome.
 */
const UPSERT_TAIL = `on conflict (id) do update set
  ${COLUMNS.filter((c) => c !== "id")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ")}
  where executions.status in ('queued', 'running')`;

interface Pending {
  row: ExecutionRow;
  terminal: boolean;
  waiters: { resolve(): void; reject(err: unknown): void }[];
}

/**
 * Group commit for PostgreSQL: the saves requested in one event-loop turn go out as one
 * multi-row upsert (one round trip, one commit), and while it is in flight the next turns'
 * saves gather for the next one. Each save resolves once its statement committed; a
 * failed statement rejects exactly the saves it held. Two saves of one id in a batch are
 * written once, the later one, unless the earlier was terminal (a terminal record is final).
 */
export class SaveBatcher {
  private pending = new Map<string, Pending>();
  private scheduled = false;
  private flushing: Promise<void> | undefined;

  constructor(private readonly pool: pg.Pool) {}

  save(row: ExecutionRow, terminal: boolean): Promise<void> {
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
  async flush(): Promise<void> {
    while (this.pending.size > 0 || this.flushing || this.scheduled) {
      await (this.flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  private kick(): void {
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.drain().finally(() => {
        this.flushing = undefined;
        if (this.pending.size > 0) this.kick();
      });
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const batch: Pending[] = [];
      for (const [id, entry] of this.pending) {
        batch.push(entry);
        this.pending.delete(id);
        if (batch.length >= MAX_ROWS) break;
      }
      try {
        await this.write(batch.map((entry) => entry.row));
        for (const entry of batch) for (const waiter of entry.waiters) waiter.resolve();
      } catch (err) {
        for (const entry of batch) for (const waiter of entry.waiters) waiter.reject(err);
      }
    }
  }

  private async write(rows: ExecutionRow[]): Promise<void> {
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const start = values.length;
      for (const column of COLUMNS) values.push(row[column]);
      return `(${COLUMNS.map((_, i) => `$${start + i + 1}`).join(", ")})`;
    });
    await this.pool.query({
      // One prepared statement per batch size that occurs; most batches are small.
      name: rows.length <= 8 ? `execution-save-${rows.length}` : undefined,
      text: `insert into executions (${COLUMNS.join(", ")}) values ${tuples.join(", ")} ${UPSERT_TAIL}`,
      values,
    });
  }
}
