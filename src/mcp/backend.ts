import type { Admission } from "../core/access.js";
import type { DiscoverResponse, SkillDetail } from "../core/answer-schemas.js";
import type { DiscoverRequest, ExecuteRequest } from "../core/api-schemas.js";
import type { ServiceError } from "../core/errors.js";
import type { ExecutionRecord } from "../core/execution/record.js";
import type { Scope } from "../core/keys/api-key.js";
import type { LogEntry } from "../core/logger.js";
import type { ProgressUpdate } from "../core/skills/skill.js";

/**
 * A discover answer (the tool's `structuredContent`) and its JSON text (the tool's text),
 * written by whoever made the answer: embedded mode, the catalog's `answerJson`, as the
 * bytes `POST /v1/discover` sends.
 */
export interface DiscoverAnswer {
  answer: DiscoverResponse;
  json: string;
}

/**
 * A tool call's count, made before the MCP server saw the call: `/mcp` counts each
 * `tools/call` as it reads the request, so that the response's limit headers include it.
 * A backend given one counts the call no more, and a refusal in it is the call's answer.
 * Without one (stdio), the backend counts the call itself.
 */
export type CountedCall = Admission;

/** One skill run asked for by a tool call. */
export interface ExecuteCall {
  request: Omit<ExecuteRequest, "async">;
  /**
   * How long the call waits for the end before answering with the still-running record
   * (contract.md: default, the whole timeout).
   */
  waitMs?: number;
  /** Checked by the tool layer (`parseToolCall`) before any backend is called. */
  idempotencyKey?: string;
  /** Fires on `notifications/cancelled`: the execution is cancelled. */
  signal: AbortSignal;
  /**
   * The run's progress. Embedded mode reports it until the run ends, answered or not;
   * remote mode follows the run's stream until the answer, or to the end with
   * `reportsToEnd`.
   */
  onProgress?: (update: ProgressUpdate) => void;
  /** The skill's log lines, reported as long as progress is (remote mode: the `log` events of the streamed execute). */
  onLog?: (entry: LogEntry) => void;
  /**
   * Progress and log lines are wanted after the answer too, until the run ends: an MCP task,
   * whose progress token lasts the task's lifetime (MCP 2025-11-25, progress).
   */
  reportsToEnd?: boolean;
  counted?: CountedCall;
}

/** A read of an execution's record asked for by `get_execution`. */
export interface GetExecutionCall {
  id: string;
  /** How long to wait for the execution's end (long poll); 0 reads it as it stands. */
  waitMs: number;
  /** Fires on `notifications/cancelled`: the wait ends (the execution runs on). */
  signal: AbortSignal;
  /**
   * The run's progress while the wait lasts, as `execute` reports it (embedded mode: the
   * core's execution events; remote mode: the progress events of the execution's stream).
   */
  onProgress?: (update: ProgressUpdate) => void;
  counted?: CountedCall;
}

/**
 * Whether the call waits for the execution's end, however long its queueing and timeout
 * take: no `waitMs`, or one no shorter than the timeout. Then the answer is terminal in
 * both modes, never a record caught running just before its timeout was recorded (unless
 * remote mode cannot follow the run: then the running record, to poll).
 */
export function waitsForEnd({ request, waitMs }: ExecuteCall): boolean {
  return waitMs === undefined || waitMs >= request.timeout_ms;
}

/** What the catalog is asked for: to list the tools, or to resolve a called tool's name. */
export type CatalogUse = "list" | "call";

/**
 * What the MCP tools need from skillport, in the REST API's terms. Embedded mode answers
 * from the core in this process; remote mode (`skillport mcp --remote URL`) through the
 * client library. The tools are written once against this, so both modes answer the same
 * calls the same way. Every method but `scope` and `skills` is one tool call and counts
 * once against the key's limits; failures are thrown as `ServiceError`s.
 */
export interface SkillportBackend {
  /**
   * The caller's scope: it decides which tools are listed (calls are refused by scope
   * where they run). Remote mode, before it could be fetched for a key over its rate
   * limit: read-only (see `RemoteBackend`).
   */
  scope(): Promise<Scope>;
  /**
   * The catalog; the same array until it changes, so derived tool lists can be cached.
   * Remote mode, before it could be fetched for a key over its rate limit: for `"list"`
   * none (the generic tools are listed); for `"call"` the refusal is thrown, so that a
   * call is answered as refused for the limit, as in embedded mode, not as an unknown tool.
   */
  skills(use: CatalogUse): Promise<readonly SkillDetail[]>;
  discover(request: DiscoverRequest, counted?: CountedCall): Promise<DiscoverAnswer>;
  execute(call: ExecuteCall): Promise<ExecutionRecord>;
  getExecution(call: GetExecutionCall): Promise<ExecutionRecord>;
  /**
   * A record as it stands, for MCP tasks (`tasks/get`, `tasks/result`). Task requests are
   * not tool calls, so embedded mode does not count them; remote mode reads over REST,
   * where every request counts.
   */
  readExecution(id: string): Promise<ExecutionRecord>;
  /** Cancels an execution (`tasks/cancel`); not a tool call either. */
  cancelExecution(id: string): Promise<ExecutionRecord>;
  /**
   * Counts a tool call refused before it became a backend call (an unknown tool, invalid
   * arguments): it still counts once against the key's limits, and a key over its limit
   * is refused for that first (429), as on `/v1`.
   */
  countRefusedCall(counted?: CountedCall): Promise<void>;
  /**
   * The contract's error for anything this backend threw: embedded mode asks the core
   * (`Skillport.errorOf`: a store outage is `service_unavailable`, a bug `internal_error`);
   * remote mode's calls already throw `ServiceError`s.
   */
  errorOf(err: unknown): ServiceError;
  /**
   * Called when the tools listed may have changed: the catalog changed (embedded mode), or
   * it or the scope arrived after a stand-in was listed for a key over its rate limit
   * (remote mode). Returns an unsubscribe function.
   */
  onSkillsChanged?(listener: () => void): () => void;
}
