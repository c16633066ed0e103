import type { StoredExecution } from "../../core/execution/record.js";
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
  EXECUTION_COLUMNS,
  EXECUTION_UPSERT_TAIL,
  type ExecutionRow,
  fromExecutionRow,
  NOT_TERMINAL_SQL,
  rowsOfGoneRunners,
  toExecutionRow,
} from "../execution-row.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import type { GroupCommit } from "./group-commit.js";
import type { StoreHealth } from "./store-health.js";

/** Rows deleted per transaction by retention, so other writers get the lock in between. */
const DELETE_CHUNK = 1000;

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
  private readonly orphanCandidates: Database.Statement<[string], OrphanRow>;
  private readonly reassign: Database.Statement<[string, string]>;
  private readonly deleteFinishedChunk: Database.Statement<[{ idFloor: string; finishedBefore: string }]>;
  private readonly queuedCandidates: Database.Statement<[string, string, number], ExecutionRow>;
  private readonly startStatement: Database.Statement<[ExecutionRow]>;
  private readonly takeStatement: Database.Statement<[ExecutionRow]>;
  private readonly take: Database.Transaction<
    (
      runnerId: string,
      limit: number,
      queuedBefore: string,
      startedAt: string,
      paramsWhileRunning: (taken: StoredExecution) => StoredExecution["params"],
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
    // Positional parameters bind in about half the time of named ones (better-sqlite3 looks
    // each name up on the row), and every execution is written this way.
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
    this.orphanCandidates = db.prepare(
      `select e.*, r.host as runner_host, r.pid as runner_pid, r.heartbeat_at as runner_heartbeat_at
       from executions e left join runners r on r.id = e.runner_id
       where e.status in ${NOT_TERMINAL_SQL} and e.runner_id <> ?`,
    );
    this.reassign = db.prepare("update executions set runner_id = ? where id = ?");
    // A record finished before the cutoff was created before it too, so its id is below the
    // cutoff's floor: the scan is a range of the primary key, not of the whole table.
    this.deleteFinishedChunk = db.prepare(
      `delete from executions where rowid in (
         select rowid from executions
         where id < @idFloor and finished_at < @finishedBefore and status not in ${NOT_TERMINAL_SQL}
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
    this.take = db.transaction((runnerId, limit, queuedBefore, startedAt, paramsWhileRunning) =>
      this.queuedCandidates.all(runnerId, queuedBefore, limit).map((row) => {
        const taken = fromExecutionRow({
          ...row,
          runner_id: runnerId,
          status: "running",
          started_at: startedAt,
        });
        this.takeStatement.run(toExecutionRow({ ...taken, params: paramsWhileRunning(taken) }));
        return taken;
      }),
    );
    this.takeStatement = db.prepare(
      `update executions set runner_id = @runner_id, status = @status, started_at = @started_at, params = @params
       where id = @id`,
    );
    this.startStatement = db.prepare(
      `update executions set status = @status, started_at = @started_at, params = @params
       where id = @id and runner_id = @runner_id and status = 'queued'`,
    );
  }

  save(execution: StoredExecution): Promise<boolean> {
    let row: ExecutionRow;
    try {
      row = toExecutionRow(execution);
    } catch (err) {
      return Promise.reject(err);
    }
    // Stays true if a later save of the same execution replaces this one in the batch.
    let applied = true;
    return this.writer
      .write(`execution:${row.id}`, () => {
        applied = this.upsert.run(EXECUTION_COLUMNS.map((column) => row[column])).changes > 0;
      })
      .then(() => applied);
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const row = this.byId.get(id);
    return row && fromExecutionRow(row);
  }

  async list(query: ExecutionListQuery): Promise<StoredExecution[]> {
    const rows = this.listStatement(query, "*").all(listParams(query)) as ExecutionRow[];
    return rows.map(fromExecutionRow);
  }

  async listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]> {
    return this.listStatement(query, SIZE_COLUMNS).all(listParams(query)) as ExecutionResultSize[];
  }

  /** Reported to the store's health as a write: the one write made every few seconds, traffic or not. */
  async heartbeat(runner: RunnerInfo): Promise<void> {
    this.health.track(() => this.upsertRunner.run(runner));
  }

  async retireRunner(runnerId: string): Promise<void> {
    this.deleteRunner.run(runnerId);
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
    startedAt: string,
    paramsWhileRunning: (taken: StoredExecution) => StoredExecution["params"],
  ): Promise<StoredExecution[]> {
    if (limit <= 0) return [];
    return this.take.immediate(runnerId, limit, queuedBefore, startedAt, paramsWhileRunning);
  }

  /**
   * A conditional update of its own rather than a group-commit write: the runner waits for
   * the answer before running the skill, and losing it in a crash only leaves the record
   * `queued`, which recovery runs again.
   */
  async start(running: StoredExecution): Promise<boolean> {
    return this.startStatement.run(toExecutionRow(running)).changes > 0;
  }

  async deleteFinishedBefore(finishedBefore: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { changes } = this.deleteFinishedChunk.run({
        idFloor: idFloor("exec", Date.parse(finishedBefore)),
        finishedBefore,
      });
      deleted += changes;
      if (changes < DELETE_CHUNK) return deleted;
    }
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
   * One statement per combination of filters and columns, so each uses an index fully: the
   * owner's index for a key's own listing, the primary key for the dashboard's listing
   * across owners.
   */
  private listStatement(query: ExecutionListQuery, columns: string): Database.Statement {
    const filters = [query.owner, query.keyId, query.status, query.skillId, query.after, query.startAt];
    const shape = `${columns}:${filters.map((filter) => filter !== undefined).join(":")}`;
    let statement = this.listStatements.get(shape);
    if (!statement) {
      const conditions = ["1 = 1"];
      if (query.owner !== undefined) conditions.push("owner = @owner");
      if (query.keyId !== undefined) conditions.push("key_id = @keyId");
      if (query.status !== undefined) conditions.push("status = @status");
      if (query.skillId !== undefined) conditions.push("skill_id = @skillId");
      if (query.after !== undefined) conditions.push("id < @after");
      if (query.startAt !== undefined) conditions.push("id <= @startAt");
      statement = this.db.prepare(
        `select ${columns} from executions where ${conditions.join(" and ")} order by id desc limit @limit`,
      );
      this.listStatements.set(shape, statement);
    }
    return statement;
  }
}

/**
 * A result's size in bytes of UTF-8 (`length` of text counts characters). The cast keeps
 * the result in SQLite: only the number reaches JavaScript.
 */
const SIZE_COLUMNS = "id, coalesce(length(cast(result as blob)), 0) as resultBytes";

/** Every name a list statement may bind; each statement binds those its filters use. */
function listParams(query: ExecutionListQuery): Record<string, unknown> {
  return {
    owner: query.owner,
    keyId: query.keyId,
    status: query.status,
    skillId: query.skillId,
    after: query.after,
    startAt: query.startAt,
    limit: query.limit,
  };
}
