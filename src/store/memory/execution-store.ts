import type { StoredExecution } from "../../core/execution/record.js";
import type { ExecutionListQuery, ExecutionResultSize, ExecutionStore } from "../../core/ports.js";
import { EXECUTION_LIST_FILTERS } from "../execution-list.js";
import { type ExecutionRow, fromExecutionRow, toExecutionRow } from "../execution-row.js";
import { isTerminalRow } from "./execution-table.js";
import { InMemoryRunnerQueue } from "./runner-queue.js";
import { compareText } from "./text-order.js";

/** The execution records, with the queue over them (`InMemoryRunnerQueue`). */
export class InMemoryExecutionStore extends InMemoryRunnerQueue implements ExecutionStore {
  /** Stored at once: there is nothing to commit, so nothing for a crash to lose before it resolves. */
  async save(execution: StoredExecution): Promise<boolean> {
    return this.table.upsert(toExecutionRow(execution));
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const row = this.table.rows.get(id);
    return row && fromExecutionRow(row);
  }

  async list(query: ExecutionListQuery): Promise<StoredExecution[]> {
    return this.listed(query).map(fromExecutionRow);
  }

  /** A result's size is the bytes of its JSON in UTF-8, as stored. */
  async listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]> {
    return this.listed(query).map((row) => ({
      id: row.id,
      resultBytes: row.result === null ? 0 : Buffer.byteLength(row.result),
    }));
  }

  /**
   * Terminal records finished before the cutoff (`finished_at < ? and status not in
   * NOT_TERMINAL_SQL`, sqlite/execution-store.ts): one still queued or running stays, however old.
   */
  async deleteFinishedBefore(finishedBefore: string): Promise<number> {
    let deleted = 0;
    for (const row of this.table.rows.values()) {
      if (
        isTerminalRow(row) &&
        row.finished_at !== null &&
        compareText(row.finished_at, finishedBefore) < 0
      ) {
        this.table.rows.delete(row.id);
        deleted++;
      }
    }
    return deleted;
  }

  /** The rows `query` selects, newest first: by id, descending (see `ExecutionStore.list`). */
  private listed(query: ExecutionListQuery): ExecutionRow[] {
    return this.table
      .select((row) => matches(row, query))
      .sort((a, b) => compareText(b.id, a.id))
      .slice(0, query.limit);
  }
}

/** Whether `row` passes every filter `query` sets, as `EXECUTION_LIST_FILTERS` states them. */
function matches(row: ExecutionRow, query: ExecutionListQuery): boolean {
  return EXECUTION_LIST_FILTERS.every(({ filter, column, operator }) => {
    const value = query[filter];
    if (value === undefined) return true;
    const order = compareText(row[column], value);
    return operator === "=" ? order === 0 : operator === "<" ? order < 0 : order <= 0;
  });
}
