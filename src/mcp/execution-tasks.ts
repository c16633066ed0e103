import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { ErrorCode, McpError, type Result, type Task } from "@modelcontextprotocol/sdk/types.js";
import { type ExecutionRecord, isTerminal } from "../core/execution/record.js";
import type { SkillportBackend } from "./backend.js";
import { outcomeResult } from "./tool-results.js";

/** Tools that run skills may be called as tasks; clients without tasks get plain results. */
export const OPTIONAL_TASKS = { taskSupport: "optional" } as const;

/** How often a client should poll a task, unless it asked for another interval. */
const DEFAULT_TASK_POLL_MS = 1_000;
/** Tasks one MCP session remembers; the oldest are forgotten first (their records stay). */
const MAX_TASKS_PER_SESSION = 1_000;
const TASKS_PAGE_SIZE = 50;

/** What a task-augmented `tools/call` hands `createTask` in its options' `context`. */
export interface ExecutionTaskContext {
  record: ExecutionRecord;
}

interface TaskEntry {
  createdAt: string;
  ttl: number | null;
  pollInterval: number;
  sessionId: string | undefined;
}

const TASK_STATUS = {
  queued: "working",
  running: "working",
  completed: "completed",
  failed: "failed",
  timed_out: "failed",
  cancelled: "cancelled",
} as const satisfies Record<ExecutionRecord["status"], Task["status"]>;

/**
 * MCP tasks (the SDK's experimental support) over execution records: a task-augmented
 * `tools/call` starts an asynchronous execution and the task IS that execution (task id =
 * execution id). Its status and result are read from the record whenever asked, so they
 * are exactly what `GET /v1/executions/{id}` says, and `tasks/cancel` cancels the
 * execution. One store per MCP session: a task is visible only to the session that
 * created it (the SDK passes the session id; stdio has none).
 */
export class ExecutionTaskStore implements TaskStore {
  /** This session's tasks by id, oldest first. */
  private readonly tasks = new Map<string, TaskEntry>();

  /**
   * @param failure the JSON-RPC error for what a backend call threw (a store outage is the
   *   server's fault, and its driver's words are not the client's to read)
   */
  constructor(
    private readonly backend: SkillportBackend,
    private readonly failure: (err: unknown) => McpError,
    private readonly now: () => number = Date.now,
  ) {}

  async createTask(options: CreateTaskOptions, _requestId: unknown, _request: unknown, sessionId?: string) {
    const { record } = (options.context ?? {}) as Partial<ExecutionTaskContext>;
    if (!record) throw new Error("a task is created for an execution: pass its record in the context");
    const entry: TaskEntry = {
      // The task's own creation, which its ttl counts from (MCP tasks: "duration … from
      // creation"): an idempotent repeat makes a task for an execution created earlier.
      createdAt: new Date(this.now()).toISOString(),
      ttl: options.ttl ?? null,
      pollInterval: options.pollInterval ?? DEFAULT_TASK_POLL_MS,
      sessionId,
    };
    // An idempotent repeat in the same session names the same task: it keeps whichever of
    // the two lives longer, so a short ttl asked the second time cannot expire the first
    // caller's task early (a receiver may set a ttl other than the one asked for).
    const earlier = this.entry(record.id, sessionId);
    if (earlier && expiresAt(earlier) >= expiresAt(entry)) return toTask(record, earlier);
    this.tasks.set(record.id, entry);
    if (this.tasks.size > MAX_TASKS_PER_SESSION) {
      const oldest = this.tasks.keys().next();
      if (!oldest.done) this.tasks.delete(oldest.value);
    }
    return toTask(record, entry);
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const entry = this.entry(taskId, sessionId);
    return entry ? toTask(await this.record(taskId), entry) : null;
  }

  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    if (!this.entry(taskId, sessionId))
      throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    const record = await this.record(taskId);
    if (!isTerminal(record.status)) {
      throw new McpError(ErrorCode.InvalidRequest, `Task ${taskId} is still ${TASK_STATUS[record.status]}`);
    }
    // The same result a plain tools/call of the same execution answers.
    return outcomeResult(record);
  }

  async storeTaskResult(taskId: string): Promise<void> {
    throw new Error(`task ${taskId}: results are the execution record's, never stored separately`);
  }

  async updateTaskStatus(taskId: string, status: Task["status"], _message?: string, sessionId?: string) {
    if (!this.entry(taskId, sessionId))
      throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    // Only a cancellation comes from outside; every other status follows the execution.
    if (status !== "cancelled") throw new Error(`task ${taskId}: its status follows its execution`);
    try {
      await this.backend.cancelExecution(taskId);
    } catch (err) {
      throw this.failure(err);
    }
  }

  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const own = [...this.tasks.keys()].filter((id) => this.entry(id, sessionId)).reverse();
    const start = cursor === undefined ? 0 : own.indexOf(cursor) + 1;
    if (cursor !== undefined && start === 0) throw new Error(`unknown cursor ${JSON.stringify(cursor)}`);
    const page = own.slice(start, start + TASKS_PAGE_SIZE);
    const tasks = await Promise.all(
      page.map(async (id) => toTask(await this.record(id), this.tasks.get(id) as TaskEntry)),
    );
    const last = page.at(-1);
    return start + page.length < own.length && last ? { tasks, nextCursor: last } : { tasks };
  }

  /** The task's execution as it stands. */
  private async record(taskId: string): Promise<ExecutionRecord> {
    try {
      return await this.backend.readExecution(taskId);
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** This session's live entry for a task; one past its time to live is forgotten. */
  private entry(taskId: string, sessionId: string | undefined): TaskEntry | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry || entry.sessionId !== sessionId) return undefined;
    if (entry.ttl !== null && this.now() > Date.parse(entry.createdAt) + entry.ttl) {
      this.tasks.delete(taskId);
      return undefined;
    }
    return entry;
  }
}

/** When a task's entry is forgotten (ms); never, without a ttl. */
function expiresAt(entry: TaskEntry): number {
  return entry.ttl === null ? Number.POSITIVE_INFINITY : Date.parse(entry.createdAt) + entry.ttl;
}

function toTask(record: ExecutionRecord, entry: TaskEntry): Task {
  const changed = record.finished_at ?? record.started_at ?? record.created_at;
  return {
    taskId: record.id,
    status: TASK_STATUS[record.status],
    ttl: entry.ttl,
    createdAt: entry.createdAt,
    // A task made for an execution that began earlier (an idempotent repeat) was last
    // updated when it was made, not before it existed.
    lastUpdatedAt: changed > entry.createdAt ? changed : entry.createdAt,
    pollInterval: entry.pollInterval,
    ...(record.error && { statusMessage: `${record.error.code}: ${record.error.message}` }),
  };
}
