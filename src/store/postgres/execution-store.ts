import type pg from "pg";
import type { StoredExecution } from "../../core/execution/record.js";
import { isTerminal } from "../../core/execution/record.js";
import type {
  ClaimedOrphan,
  ExecutionListQuery,
  ExecutionResultSize,
  ExecutionStore,
  RunnerInfo,
} from "../../core/ports.js";
import { executionListSql } from "../execution-list.js";
import {
  claimedOrphan,
  type DecodedExecutionRow,
  fromDecodedRow,
  NOT_TERMINAL_SQL,
  pruneRunnersSql,
  rowsOfGoneRunners,
  startParams,
  startSql,
  toExecutionRow,
} from "../execution-row.js";
import { DELETE_CHUNK, deleteFinishedInChunks } from "../finished-in-chunks.js";
import { executionUpsert } from "./execution-upsert.js";
import { SaveBatcher } from "./save-batcher.js";
import { inTransaction } from "./transaction.js";

// pg returns an `executions` row decoded: json parsed, booleans, timestamps as ISO strings.
interface OrphanRow extends DecodedExecutionRow {
  runner_host: string | null;
  runner_pid: number | null;
  runner_heartbeat_at: string | null;
}

/** PostgreSQL's parameter placeholders: `$1`, `$2`… */
function placeholder(position: number): string {
  return `$${position}`;
}

const START_SQL = startSql(placeholder);
const PRUNE_RUNNERS_SQL = pruneRunnersSql(placeholder);

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

  async save(execution: StoredExecution): Promise<boolean> {
    return this.batcher.save(toExecutionRow(execution), isTerminal(execution.record.status));
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const { rows } = await this.pool.query<DecodedExecutionRow>({
      name: "execution-by-id",
      text: "select * from executions where id = $1",
      values: [id],
    });
    return rows[0] && fromDecodedRow(rows[0]);
  }

  async list(query: ExecutionListQuery): Promise<StoredExecution[]> {
    const { rows } = await this.pool.query<DecodedExecutionRow>(executionListSql(query, "*", placeholder));
    return rows.map(fromDecodedRow);
  }

  /**
   * The size is measured in the server: only numbers cross the wire. `json` keeps its
   * text, so its octets are the JSON's bytes (UTF-8, the database's encoding); the cast
   * still reads each result, which the server does far faster than pg parses one.
   */
  async listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]> {
    const { rows } = await this.pool.query<{ id: string; result_bytes: number }>(
      executionListSql(
        query,
        "id, coalesce(octet_length(result::text), 0)::int as result_bytes",
        placeholder,
      ),
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

  /** `clock_timestamp()`, not `now()`: the time as the query runs, not as its transaction began. */
  async sharedClockMs(): Promise<number> {
    const { rows } = await this.pool.query<{ ms: string }>({
      name: "shared-clock",
      text: "select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms",
    });
    return Number(rows[0]?.ms);
  }

  async retireRunner(runnerId: string): Promise<void> {
    await this.pool.query("delete from runners where id = $1", [runnerId]);
  }

  async pruneRunners(heartbeatBefore: number): Promise<number> {
    const { rowCount } = await this.pool.query(PRUNE_RUNNERS_SQL, [heartbeatBefore]);
    return rowCount ?? 0;
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
      const { rows: locked } = await client.query<DecodedExecutionRow>(
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
        claimedOrphan(row, fromDecodedRow(row), runnerId),
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
   * taking at once each take different rows), and stored as the caller starts them in
   * one upsert.
   */
  async takeQueued(
    runnerId: string,
    limit: number,
    queuedBefore: string,
    startRunning: (taken: StoredExecution) => StoredExecution,
  ): Promise<StoredExecution[]> {
    if (limit <= 0) return [];
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<DecodedExecutionRow>(
        `select * from executions
         where status = 'queued' and runner_id <> $1 and created_at < $3
         order by created_at, id limit $2
         for update skip locked`,
        [runnerId, limit, queuedBefore],
      );
      if (rows.length === 0) return [];
      const started = rows.map((row) => {
        const taken = { ...fromDecodedRow(row), runnerId };
        return { taken, running: startRunning(taken) };
      });
      await client.query(executionUpsert(started.map(({ running }) => toExecutionRow(running))));
      // The run needs the params whole.
      return started.map(({ taken, running }) => ({ ...running, params: taken.params }));
    });
  }

  async start(running: StoredExecution): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: "execution-start",
      text: START_SQL,
      values: startParams(toExecutionRow(running)),
    });
    return (rowCount ?? 0) > 0;
  }

  async deleteFinishedBefore(finishedBefore: string): Promise<number> {
    return deleteFinishedInChunks(finishedBefore, async (idFloor, before) => {
      // See `deleteFinishedInChunks`.
      const { rowCount } = await this.pool.query(
        `delete from executions where id in (
           select id from executions
           where id < $1 and finished_at < $2 and status not in ${NOT_TERMINAL_SQL}
           limit ${DELETE_CHUNK})`,
        [idFloor, before],
      );
      return rowCount ?? 0;
    });
  }

  /** Waits for every save issued so far. */
  flush(): Promise<void> {
    return this.batcher.flush();
  }
}
