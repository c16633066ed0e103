import type pg from "pg";
import type { ExecutionRecord, ExecutionStatus, StoredExecution } from "../../core/execution/record.js";
import { isTerminal } from "../../core/execution/record.js";
import { idFloor } from "../../core/ids.js";
import type {
  ClaimedOrphan,
  ExecutionListQuery,
  ExecutionResultSize,
  ExecutionStore,
  RunnerInfo,
} from "../../core/ports.js";
import {
  claimedOrphan,
  type ExecutionRow,
  NOT_TERMINAL_SQL,
  rowsOfGoneRunners,
  toExecutionRow,
} from "../execution-row.js";
import { SaveBatcher } from "./save-batcher.js";
import { inTransaction } from "./transaction.js";

/** An `executions` row as pg returns it (json parsed, booleans, timestamps as ISO strings). */
interface PgExecutionRow {
  id: string;
  owner: string;
  key_id: string;
  skill_id: string;
  status: string;
  success: boolean;
  error: ExecutionRecord["error"];
  latency_ms: number | null;
  result: ExecutionRecord["result"];
  params: Record<string, unknown>;
  async: boolean;
  timeout_ms: number;
  runner_id: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

interface OrphanRow extends PgExecutionRow {
  runner_host: string | null;
  runner_pid: number | null;
  runner_heartbeat_at: string | null;
}

/** Rows deleted per statement by retention, so that no statement holds many row locks. */
const DELETE_CHUNK = 1000;

/**
 * Execution records and runners in PostgreSQL. Saves are batched (`SaveBatcher`): the
 * saves of one event-loop turn become one multi-row upsert, one round trip, and a record
 * saved twice in a turn (running, then already finished) is written once.
 */
export class PostgresExecutionStore implements ExecutionStore {
  private readonly batcher: SaveBatcher;

  constructor(private readonly pool: pg.Pool) {
    this.batcher = new SaveBatcher(pool);
  }

  save(execution: StoredExecution): Promise<boolean> {
    let row: ExecutionRow;
    try {
      row = toExecutionRow(execution);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.batcher.save(row, isTerminal(execution.record.status));
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const { rows } = await this.pool.query<PgExecutionRow>({
      name: "execution-by-id",
      text: "select * from executions where id = $1",
      values: [id],
    });
    return rows[0] && fromRow(rows[0]);
  }

  async list(query: ExecutionListQuery): Promise<StoredExecution[]> {
    const { rows } = await this.pool.query<PgExecutionRow>(listSql(query, "*"));
    return rows.map(fromRow);
  }

  /**
   * The size is measured in the server: only numbers cross the wire. `json` keeps its
   * text, so its octets are the JSON's bytes (UTF-8, the database's encoding); the cast
   * still reads each result, which the server does far faster than pg parses one.
   */
  async listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]> {
    const { rows } = await this.pool.query<{ id: string; result_bytes: number }>(
      listSql(query, "id, coalesce(octet_length(result::text), 0)::int as result_bytes"),
    );
    return rows.map((row) => ({ id: row.id, resultBytes: row.result_bytes }));
  }

  async heartbeat(runner: RunnerInfo): Promise<void> {
    await this.pool.query(
      `insert into runners (id, host, pid, heartbeat_at) values ($1, $2, $3, $4)
       on conflict (id) do update set host = excluded.host, pid = excluded.pid, heartbeat_at = excluded.heartbeat_at`,
      [runner.id, runner.host, runner.pid, runner.heartbeatAt],
    );
  }

  async retireRunner(runnerId: string): Promise<void> {
    await this.pool.query("delete from runners where id = $1", [runnerId]);
  }

  /**
   * One transaction: the candidates are locked (`for update skip locked`, so a replica
   * claiming at the same time skips them instead of waiting), judged, and reassigned.
   */
  async claimOrphans(
    runnerId: string,
    isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
  ): Promise<ClaimedOrphan[]> {
    return inTransaction(this.pool, async (client) => {
      // Lock first, then read the runners in a statement of its own. Joined in one
      // statement, a row that another replica claimed (and committed) while this one
      // waited for its lock comes back in its new version but beside its OLD runner's
      // join row (read committed re-checks the row, not the join), and would be claimed
      // twice; a fresh read sees the new runner alive.
      const { rows: locked } = await client.query<PgExecutionRow>(
        `select * from executions
         where status in ${NOT_TERMINAL_SQL} and runner_id <> $1
         for update skip locked`,
        [runnerId],
      );
      const runnerIds = [...new Set(locked.map((row) => row.runner_id))];
      const { rows: runners } = await client.query<{
        id: string;
        host: string;
        pid: number;
        heartbeat_at: string;
      }>("select id, host, pid, heartbeat_at from runners where id = any($1)", [runnerIds]);
      const byId = new Map(runners.map((runner) => [runner.id, runner]));
      const rows: OrphanRow[] = locked.map((row) => {
        const runner = byId.get(row.runner_id);
        return {
          ...row,
          runner_host: runner?.host ?? null,
          runner_pid: runner?.pid ?? null,
          runner_heartbeat_at: runner?.heartbeat_at ?? null,
        };
      });
      const claimed = rowsOfGoneRunners(rows, isRunnerGone).map((row) =>
        claimedOrphan(row, fromRow(row), runnerId),
      );
      if (claimed.length > 0) {
        await client.query("update executions set runner_id = $1 where id = any($2)", [
          runnerId,
          claimed.map((execution) => execution.record.id),
        ]);
      }
      return claimed;
    });
  }

  /**
   * One transaction: the rows are locked as they are read (`skip locked` lets replicas
   * taking at once each take different rows), and flipped to running with their params
   * masked in one statement. The masking is the core's, so the params are read first.
   */
  async takeQueued(
    runnerId: string,
    limit: number,
    queuedBefore: string,
    startedAt: string,
    paramsWhileRunning: (taken: StoredExecution) => StoredExecution["params"],
  ): Promise<StoredExecution[]> {
    if (limit <= 0) return [];
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<PgExecutionRow>(
        `select * from executions
         where status = 'queued' and runner_id <> $1 and created_at < $3
         order by created_at, id limit $2
         for update skip locked`,
        [runnerId, limit, queuedBefore],
      );
      if (rows.length === 0) return [];
      const taken = rows.map((row) =>
        fromRow({ ...row, runner_id: runnerId, status: "running", started_at: startedAt }),
      );
      await client.query(
        `update executions set runner_id = $1, status = 'running', started_at = $2, params = kept.params::json
         from unnest($3::text[], $4::text[]) as kept (id, params)
         where executions.id = kept.id`,
        [
          runnerId,
          startedAt,
          taken.map((execution) => execution.record.id),
          taken.map((execution) => JSON.stringify(paramsWhileRunning(execution))),
        ],
      );
      return taken;
    });
  }

  async start(running: StoredExecution): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: "execution-start",
      text: `update executions set status = $2, started_at = $3, params = $5
             where id = $1 and runner_id = $4 and status = 'queued'`,
      values: [
        running.record.id,
        running.record.status,
        running.record.started_at,
        running.runnerId,
        JSON.stringify(running.params),
      ],
    });
    return (rowCount ?? 0) > 0;
  }

  async deleteFinishedBefore(finishedBefore: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.pool.query(
        // A record finished before the cutoff was created before it: a primary-key range.
        `delete from executions where id in (
           select id from executions
           where id < $1 and finished_at < $2 and status not in ${NOT_TERMINAL_SQL}
           limit ${DELETE_CHUNK})`,
        [idFloor("exec", Date.parse(finishedBefore)), finishedBefore],
      );
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < DELETE_CHUNK) return deleted;
    }
  }

  /** Waits for every save issued so far. */
  flush(): Promise<void> {
    return this.batcher.flush();
  }
}

/** The statement listing `columns` of the records `query` selects, newest first. */
function listSql(query: ExecutionListQuery, columns: string): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions: string[] = [];
  const where = (sql: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(sql(`$${values.length}`));
  };
  if (query.owner !== undefined) where((p) => `owner = ${p}`, query.owner);
  if (query.keyId !== undefined) where((p) => `key_id = ${p}`, query.keyId);
  if (query.status !== undefined) where((p) => `status = ${p}`, query.status);
  if (query.skillId !== undefined) where((p) => `skill_id = ${p}`, query.skillId);
  if (query.after !== undefined) where((p) => `id < ${p}`, query.after);
  if (query.startAt !== undefined) where((p) => `id <= ${p}`, query.startAt);
  values.push(query.limit);
  return {
    text: `select ${columns} from executions ${conditions.length > 0 ? `where ${conditions.join(" and ")}` : ""}
       order by id desc limit $${values.length}`,
    values,
  };
}

function fromRow(row: PgExecutionRow): StoredExecution {
  return {
    record: {
      id: row.id,
      skill_id: row.skill_id,
      // Rows are only written from typed records: the cast restores the type.
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
