import type { Clock } from "../../core/clock.js";
import { type ExecutionStatus, isTerminal } from "../../core/execution/record.js";
import type { RunnerInfo } from "../../core/ports.js";
import type { ExecutionRow } from "../execution-row.js";

/**
 * The execution records and the runners, as the SQL stores' `executions` and `runners`
 * tables: what `InMemoryExecutionStore` and its queue share. A record is kept as the row
 * `toExecutionRow` makes of it (its JSON as text), so it is a snapshot taken when saved,
 * every read decodes a copy, and a result's size is that of its JSON, as in SQL.
 */
export class ExecutionTable {
  readonly rows = new Map<string, ExecutionRow>();
  readonly runners = new Map<string, RunnerInfo>();

  /** See `MemoryDataOptions.sharedClock`. */
  constructor(readonly sharedClock?: Clock) {}

  /**
   * Stores `row` unless the record stored under its id is terminal: a terminal record
   * never changes again (contract.md, "Execution record"), whoever saves (the `where` of
   * `EXECUTION_UPSERT_TAIL`). True when it stored it.
   */
  upsert(row: ExecutionRow): boolean {
    const stored = this.rows.get(row.id);
    if (stored && isTerminalRow(stored)) return false;
    this.rows.set(row.id, row);
    return true;
  }

  /** The rows `keep` accepts, in no particular order. */
  select(keep: (row: ExecutionRow) => boolean): ExecutionRow[] {
    return [...this.rows.values()].filter(keep);
  }
}

export function isTerminalRow(row: ExecutionRow): boolean {
  // Rows are only made by toExecutionRow, from typed records: the cast restores the type.
  return isTerminal(row.status as ExecutionStatus);
}
