import type { StoredExecution } from "../../core/execution/record.js";
import type { ClaimedOrphan, RunnerInfo, RunnerQueue } from "../../core/ports.js";
import {
  claimedOrphan,
  type ExecutionRow,
  fromExecutionRow,
  type RunnerColumns,
  rowsOfGoneRunners,
  toExecutionRow,
} from "../execution-row.js";
import { type ExecutionTable, isTerminalRow } from "./execution-table.js";
import { compareText } from "./text-order.js";

/** An orphan candidate: a row with its runner's columns, as the SQL stores join them. */
interface Candidate extends RunnerColumns {
  row: ExecutionRow;
}

/**
 * The runners and the queue over the records (`RunnerQueue`). Each step that the SQL
 * stores take in one transaction is one call here that never awaits: JavaScript runs no
 * other call in between, so two runners never take the same execution. And each reads
 * everything it needs (and calls back the caller) before it changes anything, so that an
 * error thrown midway leaves the records as they were, as a rolled-back transaction does.
 */
export class InMemoryRunnerQueue implements RunnerQueue {
  constructor(protected readonly table: ExecutionTable) {}

  async heartbeat(runner: RunnerInfo): Promise<void> {
    this.table.runners.set(runner.id, { ...runner });
  }

  /** The data's shared clock, which tests give to stand for a PostgreSQL server's (`MemoryDataOptions.sharedClock`). */
  async sharedClockMs(): Promise<number | undefined> {
    return this.table.sharedClock?.now();
  }

  async retireRunner(runnerId: string): Promise<void> {
    this.table.runners.delete(runnerId);
  }

  async pruneRunners(heartbeatBefore: number): Promise<number> {
    const holding = new Set(this.table.select((row) => !isTerminalRow(row)).map((row) => row.runner_id));
    let pruned = 0;
    for (const runner of [...this.table.runners.values()]) {
      if (runner.heartbeatAt >= heartbeatBefore || holding.has(runner.id)) continue;
      this.table.runners.delete(runner.id);
      pruned++;
    }
    return pruned;
  }

  /** Each runner holding a non-terminal record is judged once (`rowsOfGoneRunners`), then its records are reassigned. */
  async claimOrphans(
    runnerId: string,
    isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
  ): Promise<ClaimedOrphan[]> {
    const candidates = this.table
      .select((row) => !isTerminalRow(row) && row.runner_id !== runnerId)
      .map((row) => this.withRunner(row));
    return rowsOfGoneRunners(candidates, isRunnerGone).map((candidate) => {
      this.table.rows.set(candidate.row.id, { ...candidate.row, runner_id: runnerId });
      return claimedOrphan(candidate, fromExecutionRow(candidate.row), runnerId);
    });
  }

  /**
   * Queued records of other runners created before `queuedBefore`, oldest first (by
   * `created_at`, then id), up to `limit`: each stored as `startRunning` makes it, held by
   * `runnerId`, and returned with its params as they were queued (whole).
   */
  async takeQueued(
    runnerId: string,
    limit: number,
    queuedBefore: string,
    startRunning: (taken: StoredExecution) => StoredExecution,
  ): Promise<StoredExecution[]> {
    if (limit <= 0) return [];
    const queued = this.table
      .select(
        (row) =>
          row.status === "queued" &&
          row.runner_id !== runnerId &&
          compareText(row.created_at, queuedBefore) < 0,
      )
      .sort((a, b) => compareText(a.created_at, b.created_at) || compareText(a.id, b.id))
      .slice(0, limit);
    const started = queued.map((row) => {
      const taken = { ...fromExecutionRow(row), runnerId };
      const running = startRunning(taken);
      return { running, row: toExecutionRow(running), params: taken.params };
    });
    for (const { row } of started) this.table.upsert(row);
    return started.map(({ running, params }) => ({ ...running, params }));
  }

  /** Stores `running` whole only while the stored record is queued and held by its runner (`startSql`'s `where`). */
  async start(running: StoredExecution): Promise<boolean> {
    const row = toExecutionRow(running);
    const stored = this.table.rows.get(row.id);
    if (stored?.status !== "queued" || stored.runner_id !== row.runner_id) return false;
    this.table.rows.set(row.id, row);
    return true;
  }

  /** The runner columns of `row` (all null when its runner has no row: gone, or retired). */
  private withRunner(row: ExecutionRow): Candidate {
    const runner = this.table.runners.get(row.runner_id);
    return {
      row,
      runner_id: row.runner_id,
      runner_host: runner?.host ?? null,
      runner_pid: runner?.pid ?? null,
      runner_heartbeat_at: runner?.heartbeatAt ?? null,
    };
  }
}
