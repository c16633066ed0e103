import {
  EXECUTION_STATUSES,
  type ExecutionRecord,
  type ExecutionStatus,
  isTerminal,
  type StoredExecution,
} from "../core/execution/record.js";
import type { ClaimedOrphan, RunnerInfo } from "../core/ports.js";

/**
 * An `executions` row as both adapters write it (`toExecutionRow`): JSON as text, booleans
 * as 0 and 1, which both databases take. SQLite also reads rows back in this shape;
 * each adapter decodes what its driver returns into a `DecodedExecutionRow`.
 */
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

/**
 * An `executions` row with each column decoded to its JavaScript value (JSON parsed,
 * booleans, timestamps as ISO strings): what both adapters read, whatever their driver
 * returns. pg returns rows in this shape; SQLite's are decoded by its adapter.
 */
export interface DecodedExecutionRow
  extends Omit<ExecutionRow, "success" | "error" | "result" | "params" | "async"> {
  success: boolean;
  error: ExecutionRecord["error"];
  result: ExecutionRecord["result"];
  params: StoredExecution["params"];
  async: boolean;
}

/** A statement's parameter placeholder at a position counted from 1: `?` (SQLite), `$n` (PostgreSQL). */
export type Placeholder = (position: number) => string;

/**
 * The statuses a record may still leave, `('queued', 'running')`, as SQL for both
 * adapters: the core's list (contract.md, "Execution record"), so the two cannot differ.
 */
export const NOT_TERMINAL_SQL = `(${EXECUTION_STATUSES.filter((status) => !isTerminal(status))
  .map((status) => `'${status}'`)
  .join(", ")})`;

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

/** The execution a row holds, once its adapter decoded it: the inverse of `toExecutionRow`. */
export function fromDecodedRow(row: DecodedExecutionRow): StoredExecution {
  return {
    record: {
      id: row.id,
      skill_id: row.skill_id,
      // Rows are only written by toExecutionRow, from typed records: the cast restores the type.
      status: row.status as ExecutionStatus,
      success: row.success,
      error: row.error,
      latency_ms: row.latency_ms,
      result: row.result,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
    },
    owner: row.owner,
    keyId: row.key_id,
    params: row.params,
    async: row.async,
    timeoutMs: row.timeout_ms,
    runnerId: row.runner_id,
  };
}

/**
 * The execution a row holds as `toExecutionRow` wrote it (JSON as text, booleans as 0 and
 * 1): what SQLite returns, and what the in-memory adapter keeps.
 */
export function fromExecutionRow(row: ExecutionRow): StoredExecution {
  return fromDecodedRow({
    ...row,
    success: row.success === 1,
    error: row.error === null ? null : (JSON.parse(row.error) as DecodedExecutionRow["error"]),
    result: row.result === null ? null : (JSON.parse(row.result) as DecodedExecutionRow["result"]),
    params: JSON.parse(row.params) as DecodedExecutionRow["params"],
    async: row.async === 1,
  });
}

/** The columns `start` writes: every one, as the core built the running record (`markRunning`). */
const START_COLUMNS = EXECUTION_COLUMNS.filter((column) => column !== "id");

/**
 * `start`'s statement: the running row the core built replaces the stored one, every
 * column, only while that is still queued and held by the same runner. Its parameters
 * are `startParams(row)`.
 */
export function startSql(placeholder: Placeholder): string {
  const set = START_COLUMNS.map((column, i) => `${column} = ${placeholder(i + 1)}`).join(", ");
  const next = START_COLUMNS.length + 1;
  return `update executions set ${set}
    where id = ${placeholder(next)} and runner_id = ${placeholder(next + 1)} and status = 'queued'`;
}

/** The parameters of `startSql` for `row`. */
export function startParams(row: ExecutionRow): unknown[] {
  const params: unknown[] = START_COLUMNS.map((column) => row[column]);
  params.push(row.id, row.runner_id);
  return params;
}

/**
 * `pruneRunners`' statement (its one parameter: the heartbeat cutoff): the rows of runners
 * silent since before it that hold no unfinished execution.
 */
export function pruneRunnersSql(placeholder: Placeholder): string {
  return `delete from runners
    where heartbeat_at < ${placeholder(1)}
      and not exists (
        select 1 from executions
        where executions.runner_id = runners.id and executions.status in ${NOT_TERMINAL_SQL})`;
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
function runnerOf(row: RunnerColumns): RunnerInfo | undefined {
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
