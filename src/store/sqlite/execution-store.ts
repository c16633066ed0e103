import type { StoredExecution } from "../../core/execution/record.js";
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
  EXECUTION_COLUMNS,
  EXECUTION_UPSERT_TAIL,
  type ExecutionRow,
  fromExecutionRow,
  NOT_TERMINAL_SQL,
  pruneRunnersSql,
  rowsOfGoneRunners,
  startParams,
  startSql,
  toExecutionRow,
} from "../execution-row.js";
import { DELETE_CHUNK, deleteFinishedInChunks } from "../finished-in-chunks.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import type { GroupCommit } from "./group-commit.js";
import type { StoreHealth } from "./store-health.js";

interface OrphanRow extends ExecutionRow {
  runner_host: string | null;
  runner_pid: number | null;
  runner_heartbeat_at: number | null;
}

/**
 * Execution records in the `executions` table and runners in `runners`. Saves go through
 * the group commit; everything else is a statement of its own.
 */
export class SqliteExecutionStore implements ExecutionStore {
  private readonly upsert: Database.Statement<[unknown[]]>;
  private readonly byId: Database.Statement<[string], ExecutionRow>;
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly upsertRunner: Database.Statement<[RunnerInfo]>;
  private readonly deleteRunner: Database.Statement<[string]>;
  private readonly pruneRunnersStatement: Database.Statement<[number]>;
  private readonly orphanCandidates: Database.Statement<[string], OrphanRow>;
  private readonly reassign: Database.Statement<[string, string]>;
  private readonly deleteFinishedChunk: Database.Statement<[string, string]>;
  private readonly queuedCandidates: Database.Statement<[string, string, number], ExecutionRow>;
  private readonly startStatement: Database.Statement<[unknown[]]>;
  private readonly take: Database.Transaction<
    (
      runnerId: string,
      limit: number,
      queuedBefore: string,
      startRunning: (taken: StoredExecution) => StoredExecution,
    ) => StoredExecution[]
  >;
  private readonly claim: Database.Transaction<
    (runnerId: string, isRunnerGone: (runner: RunnerInfo | undefined) => boolean) => ClaimedOrphan[]
  >;

  constructor(
    private readonly db: Database.Database,
    private readonly writer: GroupCommit,
    private readonly health: StoreHealth,
  ) {
    // Positional parameters: see `upsertParams`.
    this.upsert = db.prepare(
      `insert into executions (${EXECUTION_COLUMNS.join(", ")})
       values (${EXECUTION_COLUMNS.map(() => "?").join(", ")}) ${EXECUTION_UPSERT_TAIL}`,
    );
    this.byId = db.prepare("select * from executions where id = ?");
    this.upsertRunner = db.prepare(
      `insert into runners (id, host, pid, heartbeat_at) values (@id, @host, @pid, @heartbeatAt)
       on conflict (id) do update set
         host = excluded.host, pid = excluded.pid, heartbeat_at = excluded.heartbeat_at`,
    );
    this.deleteRunner = db.prepare("delete from runners where id = ?");
    this.pruneRunnersStatement = db.prepare(pruneRunnersSql(() => "?"));
    this.orphanCandidates = db.prepare(
      `select e.*, r.host as runner_host, r.pid as runner_pid, r.heartbeat_at as runner_heartbeat_at
       from executions e left join runners r on r.id = e.runner_id
       where e.status in ${NOT_TERMINAL_SQL} and e.runner_id <> ?`,
    );
    this.reassign = db.prepare("update executions set runner_id = ? where id = ?");
    // See `deleteFinishedInChunks`.
    this.deleteFinishedChunk = db.prepare(
      `delete from executions where rowid in (
         select rowid from executions
         where id < ? and finished_at < ? and status not in ${NOT_TERMINAL_SQL}
         limit ${DELETE_CHUNK})`,
    );
    this.claim = db.transaction((runnerId, isRunnerGone) => this.claimInTransaction(runnerId, isRunnerGone));
    // The index's own condition is repeated: SQLite uses a partial index only for a query
    // that states it (`status = 'queued'` alone does not), and without it this read, made on
    // every heartbeat, scanned the whole table (38 ms at 300k records, the event loop held).
    this.queuedCandidates = db.prepare(
      `select * from executions
       where status in ${NOT_TERMINAL_SQL} and status = 'queued' and runner_id <> ? and created_at < ?
       order by created_at, id limit ?`,
    );
    // Each candidate is queued and the write lock held: the upsert stores what the caller made of it.
    this.take = db.transaction((runnerId, limit, queuedBefore, startRunning) =>
      this.queuedCandidates.all(runnerId, queuedBefore, limit).map((row) => {
        const taken = { ...fromExecutionRow(row), runnerId };
        const running = startRunning(taken);
        this.upsert.run(upsertParams(toExecutionRow(running)));
        return { ...running, params: taken.params };
      }),
    );
    this.startStatement = db.prepare(startSql(() => "?"));
  }

  async save(execution: StoredExecution): Promise<boolean> {
    const row = toExecutionRow(execution);
    // Stays true if a later save of the same execution replaces this one in the batch.
    let applied = true;
    return this.writer
      .write(`execution:${row.id}`, () => {
        applied = this.upsert.run(upsertParams(row)).changes > 0;
      })
      .then(() => applied);
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const row = this.byId.get(id);
    return row && fromExecutionRow(row);
  }

  async list(query: ExecutionListQuery): Promise<StoredExecution[]> {
    return (this.listAll(query, "*") as ExecutionRow[]).map(fromExecutionRow);
  }

  async listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]> {
    return this.listAll(query, SIZE_COLUMNS) as ExecutionResultSize[];
  }

  /** Reported to the store's health as a write: the one write made every few seconds, traffic or not. */
  async heartbeat(runner: RunnerInfo): Promise<void> {
    this.health.track(() => this.upsertRunner.run(runner));
  }

  /** The processes sharing a SQLite file share its machine's clock. */
  async sharedClockMs(): Promise<undefined> {
    return undefined;
  }

  async retireRunner(runnerId: string): Promise<void> {
    this.deleteRunner.run(runnerId);
  }

  async pruneRunners(heartbeatBefore: number): Promise<number> {
    return this.pruneRunnersStatement.run(heartbeatBefore).changes;
  }

  /**
   * One IMMEDIATE transaction: the write lock is held from the read to the update, so two
   * processes claiming at once take each orphan exactly once.
   */
  async claimOrphans(
    runnerId: string,
    isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
  ): Promise<ClaimedOrphan[]> {
    return this.claim.immediate(runnerId, isRunnerGone);
  }

  /** One IMMEDIATE transaction, like `claimOrphans`: each queued execution goes to one runner. */
  async takeQueued(
    runnerId: string,
    limit: number,
    queuedBefore: string,
    startRunning: (taken: StoredExecution) => StoredExecution,
  ): Promise<StoredExecution[]> {
    if (limit <= 0) return [];
    return this.take.immediate(runnerId, limit, queuedBefore, startRunning);
  }

  /**
   * A conditional update of its own rather than a group-commit write: the runner waits for
   * the answer before running the skill, and losing it in a crash only leaves the record
   * `queued`, which recovery runs again.
   */
  async start(running: StoredExecution): Promise<boolean> {
    return this.startStatement.run(startParams(toExecutionRow(running))).changes > 0;
  }

  async deleteFinishedBefore(finishedBefore: string): Promise<number> {
    return deleteFinishedInChunks(
      finishedBefore,
      (idFloor, before) => this.deleteFinishedChunk.run(idFloor, before).changes,
    );
  }

  private claimInTransaction(
    runnerId: string,
    isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
  ): ClaimedOrphan[] {
    return rowsOfGoneRunners(this.orphanCandidates.all(runnerId), isRunnerGone).map((row) => {
      this.reassign.run(runnerId, row.id);
      return claimedOrphan(row, fromExecutionRow(row), runnerId);
    });
  }

  /**
   * The rows of a listing. One prepared statement per combination of filters and columns
   * (its text), so each uses an index fully: the owner's index for a key's own listing,
   * the primary key for the dashboard's listing across owners.
   */
  private listAll(query: ExecutionListQuery, columns: string): unknown[] {
    const { text, values } = executionListSql(query, columns, () => "?");
    let statement = this.listStatements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.listStatements.set(text, statement);
    }
    return statement.all(values);
  }
}

/**
 * A result's size in bytes of UTF-8 (`length` of text counts characters). The cast keeps
 * the result in SQLite: only the number reaches JavaScript.
 */
const SIZE_COLUMNS = "id, coalesce(length(cast(result as blob)), 0) as resultBytes";

/**
 * The upsert's parameters, positional: they bind in about half the time of named ones
 * (better-sqlite3 looks each name up on the row), and every execution is written this way.
 */
function upsertParams(row: ExecutionRow): unknown[] {
  return EXECUTION_COLUMNS.map((column) => row[column]);
}
