import type { ExecutionRecord, ExecutionStatus, StoredExecution } from "../core/execution/record.js";
import type { ClaimedOrphan, RunnerInfo } from "../core/ports.js";

/** An `executions` row as better-sqlite3 returns it, and the parameters both adapters write. */
export interface ExecutionRow {
  id: string;
  owner: string;
  key_id: string;
  skill_id: string;
  status: string;
  success: number;
  error: string | null;
  latency_ms: number | null;
  result: string | null;
  params: string;
  async: number;
  timeout_ms: number;
  runner_id: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** `queued` and `running`, as SQL (contract.md, "Execution record"), for both adapters. */
export const NOT_TERMINAL_SQL = "('queued', 'running')";

/** The columns of an `executions` row, in the order both adapters' upserts bind them. */
export const EXECUTION_COLUMNS = [
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

/**
 * What follows `insert into executions (...) values (...)` in both adapters' upserts. The
 * `where` keeps a terminal record from ever changing again (contract.md, "Execution
 * record"), even when a runner judged gone, whose executions another runner claimed,
 * wakes up and saves its own outcome.
 */
export const EXECUTION_UPSERT_TAIL = `on conflict (id) do update set
  ${EXECUTION_COLUMNS.filter((column) => column !== "id")
    .map((column) => `${column} = excluded.${column}`)
    .join(", ")}
  where executions.status in ${NOT_TERMINAL_SQL}`;

/**
 * The bind parameters of an `executions` row. Serialising happens when `save` is called,
 * not when the batch commits: a record that cannot be stored (say, a result that is not
 * JSON) fails its own `save` alone, and later changes to the caller's object do not leak
 * into the row.
 */
export function toExecutionRow(execution: StoredExecution): ExecutionRow {
  const { record } = execution;
  return {
    id: record.id,
    owner: execution.owner,
    key_id: execution.keyId,
    skill_id: record.skill_id,
    status: record.status,
    success: record.success ? 1 : 0,
    error: record.error === null ? null : JSON.stringify(record.error),
    latency_ms: record.latency_ms,
    result: record.result === null ? null : JSON.stringify(record.result),
    params: JSON.stringify(execution.params),
    async: execution.async ? 1 : 0,
    timeout_ms: execution.timeoutMs,
    runner_id: execution.runnerId,
    created_at: record.created_at,
    started_at: record.started_at,
    finished_at: record.finished_at,
  };
}

/** The inverse of `toExecutionRow`. */
export function fromExecutionRow(row: ExecutionRow): StoredExecution {
  const record: ExecutionRecord = {
    id: row.id,
    skill_id: row.skill_id,
    // Rows are only written by toExecutionRow, from typed records: the casts restore types.
    status: row.status as ExecutionStatus,
    success: row.success === 1,
    error: row.error === null ? null : (JSON.parse(row.error) as ExecutionRecord["error"]),
    latency_ms: row.latency_ms,
    result: row.result === null ? null : (JSON.parse(row.result) as ExecutionRecord["result"]),
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
  return {
    record,
    owner: row.owner,
    keyId: row.key_id,
    params: JSON.parse(row.params) as StoredExecution["params"],
    async: row.async === 1,
    timeoutMs: row.timeout_ms,
    runnerId: row.runner_id,
  };
}

/** The runner columns an orphan query joins to each execution (null: the runner has no row). */
export interface RunnerColumns {
  runner_id: string;
  runner_host: string | null;
  runner_pid: number | null;
  /** Unix milliseconds; pg returns a bigint column as a string. */
  runner_heartbeat_at: number | string | null;
}

/** The runner of an orphan-query row, or undefined when the runner has no row. */
export function runnerOf(row: RunnerColumns): RunnerInfo | undefined {
  if (row.runner_host === null || row.runner_pid === null || row.runner_heartbeat_at === null) {
    return undefined;
  }
  return {
    id: row.runner_id,
    host: row.runner_host,
    pid: row.runner_pid,
    heartbeatAt: Number(row.runner_heartbeat_at),
  };
}

/** An orphan row as claimed by `runnerId`, with when its gone runner last beat. */
export function claimedOrphan(
  row: RunnerColumns,
  execution: StoredExecution,
  runnerId: string,
): ClaimedOrphan {
  return { ...execution, runnerId, lastHeartbeatAt: runnerOf(row)?.heartbeatAt };
}

/**
 * The rows, among orphan candidates, whose runner `isRunnerGone` judges gone; each runner
 * is judged once however many executions it left.
 */
export function rowsOfGoneRunners<Row extends RunnerColumns>(
  rows: Row[],
  isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
): Row[] {
  const verdicts = new Map<string, boolean>();
  return rows.filter((row) => {
    let gone = verdicts.get(row.runner_id);
    if (gone === undefined) {
      gone = isRunnerGone(runnerOf(row));
      verdicts.set(row.runner_id, gone);
    }
    return gone;
  });
}
