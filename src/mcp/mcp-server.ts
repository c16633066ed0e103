import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ProgressToken,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { SkillDetail } from "../core/answer-schemas.js";
import { checkIdempotencyKey, type DiscoverRequest } from "../core/api-schemas.js";
import type { LogEntry, Logger } from "../core/logger.js";
import type { ProgressUpdate } from "../core/skills/skill.js";
import { parseOrThrow } from "../core/validation.js";
import type { CatalogUse, ExecuteCall, SkillportBackend } from "./backend.js";
import { ExecutionTaskStore } from "./execution-tasks.js";
import { DiscoverSkillsArgs, ExecuteSkillArgs, GetExecutionArgs } from "./generic-tools.js";
import { type SkillToolOptions, ToolCatalog, type ToolTarget } from "./tool-catalog.js";
import { errorMeta, errorResult, errorText, jsonText, outcomeResult, recordResult } from "./tool-results.js";

export interface McpServerOptions extends SkillToolOptions {
  version: string;
  logger: Logger;
}

/** Lets a retrying client make a skill call at most once, as `Idempotency-Key` does on `/v1`. */
const IDEMPOTENCY_META = "skillport/idempotency_key";

const INSTRUCTIONS = `skillport finds and runs skills. Call discover_skills with a plain description of the task to get the best-matching skills and their params schemas; run one with execute_skill (or with its own tool when one is listed), and poll long runs with get_execution.`;

type CallExtra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

interface CallContext {
  signal: AbortSignal;
  onProgress: ((update: ProgressUpdate) => void) | undefined;
  onLog: (entry: LogEntry) => void;
  idempotencyKey: string | undefined;
  /** Stops sending progress for the call (it was answered). */
  close(): void;
}

let sharedAjv: AjvJsonSchemaValidator | undefined;

/**
 * The SDK's server validates only elicitation answers with its JSON Schema validator (and
 * skillport never elicits), yet by default each `Server` builds its own Ajv instance: about
 * 20 ms of CPU at start-up and on every new `/mcp` session. One instance, made on first use.
 */
const lazyJsonSchemaValidator: jsonSchemaValidator = {
  getValidator(schema) {
    sharedAjv ??= new AjvJsonSchemaValidator();
    return sharedAjv.getValidator(schema);
  },
};

/** MCP's names for the logging port's levels. */
const MCP_LOG_LEVELS = { debug: "debug", info: "info", warn: "warning", error: "error" } as const;

/** An MCP server and a way to wait for the tool calls it is answering. */
export interface McpEndpoint {
  server: Server;
  /** Resolves once no tool call is in progress (so that shutdown loses no answer). */
  drained(): Promise<void>;
}

/**
 * An MCP server over `backend`, for one caller (a stdio process or an HTTP session). The
 * tools are listed for the caller's scope; every call becomes one backend call.
 */
export function createMcpServer(backend: SkillportBackend, options: McpServerOptions): McpEndpoint {
  const server = new Server(
    { name: "skillport", title: "skillport", version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        // Task-augmented tools/call (optional per tool: clients without tasks get plain results).
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: lazyJsonSchemaValidator,
      taskStore: new ExecutionTaskStore(backend),
    },
  );
  const inFlight = new Set<Promise<unknown>>();
  const catalogs = new WeakMap<readonly SkillDetail[], ToolCatalog>();
  const toolCatalog = async (use: CatalogUse) => {
    const skills = await backend.skills(use);
    let catalog = catalogs.get(skills);
    if (!catalog) {
      catalog = new ToolCatalog(skills, options);
      catalogs.set(skills, catalog);
    }
    return catalog;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      const [catalog, scope] = await Promise.all([toolCatalog("list"), backend.scope()]);
      return { tools: catalog.list(scope) };
    } catch (err) {
      // No tools for a key that stopped working: say why, as a protocol error.
      const error = backend.errorOf(err);
      throw new McpError(ErrorCode.InvalidRequest, `${error.code}: ${error.message}`);
    }
  });

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
      // Tracked from its first step, so that a shutdown starting meanwhile waits for it.
      const call = request.params.task ? startTask(request, extra) : answerCall(request, extra);
      inFlight.add(call);
      try {
        return await call;
      } finally {
        inFlight.delete(call);
      }
    },
  );

  /**
   * The tool a call names. Remote mode, before the catalog could be fetched for a key over
   * its rate limit, this throws that refusal: the name is not known to be unknown, and a
   * client may be calling a tool it listed earlier.
   */
  async function resolveTool(request: CallToolRequest): Promise<ToolTarget> {
    const target = (await toolCatalog("call")).resolve(request.params.name);
    if (!target) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(request.params.name)}; call tools/list, or discover_skills and execute_skill.`,
      );
    }
    return target;
  }

  /**
   * What a call's run reports to, and how. A task's progress goes on after its
   * CreateTaskResult ended the request (MCP: the token lasts the task's lifetime), so it is
   * sent unrelated to that request: over HTTP, on the session's GET stream.
   */
  function callContext(request: CallToolRequest, extra: CallExtra, { task = false } = {}): CallContext {
    const meta = request.params._meta;
    const progressToken = meta?.progressToken;
    const idempotencyKey = meta?.[IDEMPOTENCY_META];
    let open = true;
    const send: ProgressSend = task
      ? (notification) => server.notification(notification)
      : extra.sendNotification;
    const sendProgress = progressToken === undefined ? undefined : progressSender(progressToken, send);
    return {
      signal: extra.signal,
      onProgress: sendProgress && ((update) => open && sendProgress(update)),
      close: () => {
        open = false;
      },
      idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
      // The client's logging/setLevel decides which lines are sent (the SDK filters).
      onLog: ({ level, message, fields }) => {
        server
          .sendLoggingMessage(
            { level: MCP_LOG_LEVELS[level], logger: "skillport", data: { ...fields, message } },
            extra.sessionId,
          )
          .catch(() => {});
      },
    };
  }

  /**
   * Resolves the tool and parses its arguments. A call refused here never reaches the
   * backend, yet counts against the key's limits like any tools/call (contract.md), and a
   * key over its limit hears that first, as on `/v1`.
   */
  async function prepare<T>(request: CallToolRequest, parse: (target: ToolTarget) => T): Promise<T> {
    try {
      const target = await resolveTool(request);
      // A key that is not text (a counter, an object) is refused, not ignored: a client
      // retrying with it believes its call runs once. Checked here, in both modes, so that
      // a refused key counts, and a key over its limit hears that first.
      const idempotencyKey = request.params._meta?.[IDEMPOTENCY_META];
      if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey);
      return parse(target);
    } catch (err) {
      await backend.countRefusedCall();
      throw err;
    }
  }

  async function answerCall(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    const context = callContext(request, extra);
    try {
      const call = await prepare(request, (target) => parseToolCall(target, request.params.arguments ?? {}));
      return await runToolCall(backend, call, context);
    } catch (err) {
      if (err instanceof McpError) throw err;
      const error = backend.errorOf(err);
      if (error.code === "internal_error")
        options.logger.error({ err, tool: request.params.name }, "tool call failed");
      return errorResult(error);
    } finally {
      // Progress is for the call's lifetime (MCP): an execution that runs on after a
      // `wait_ms` answer reports no more of it here.
      context.close();
    }
  }

  /**
   * A task-augmented call: the execution starts asynchronously and the answer is its task
   * (task id = execution id), followed with tasks/get and tasks/result, cancelled with
   * tasks/cancel. A refusal is a JSON-RPC error here: a task creation has no isError result.
   */
  async function startTask(request: CallToolRequest, extra: CallExtra): Promise<CreateTaskResult> {
    const { onProgress, onLog, idempotencyKey } = callContext(request, extra, { task: true });
    if (!extra.taskStore) throw new McpError(ErrorCode.InternalError, "tasks are not available");
    // Checked before the execution starts: a task that could not be kept must not run.
    const ttl = request.params.task?.ttl;
    if (ttl !== undefined && ttl !== null && !(Number.isInteger(ttl) && ttl >= 0)) {
      throw new McpError(ErrorCode.InvalidParams, "task.ttl: a whole number of milliseconds, at least 0");
    }
    try {
      const execution = await prepare(request, (target) =>
        taskExecution(target, request.params.arguments ?? {}),
      );
      // The execution outlives this request: only tasks/cancel cancels it.
      const signal = new AbortController().signal;
      const record = await backend.execute({
        request: execution,
        waitMs: 0,
        idempotencyKey,
        signal,
        onProgress,
        onLog,
        reportsToEnd: true,
      });
      const task = await extra.taskStore.createTask({ ttl: request.params.task?.ttl, context: { record } });
      return { task };
    } catch (err) {
      if (err instanceof McpError) throw err;
      const error = backend.errorOf(err);
      if (error.code === "internal_error")
        options.logger.error({ err, tool: request.params.name }, "task failed to start");
      const code =
        error.code === "invalid_params" || error.code === "skill_not_found"
          ? ErrorCode.InvalidParams
          : ErrorCode.InvalidRequest;
      throw new McpError(code, errorText(error), errorMeta(error));
    }
  }

  const unsubscribe = backend.onSkillsChanged?.(() => {
    server.sendToolListChanged().catch(() => {});
  });
  const close = server.onclose;
  server.onclose = () => {
    unsubscribe?.();
    close?.();
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const drained = async () => {
    // A call whose message was read just before the shutdown began reaches its handler a
    // few microtasks later, and an answer is sent in the turn after its call settles.
    do {
      await nextTurn();
      await Promise.allSettled(inFlight);
    } while (inFlight.size > 0);
    await nextTurn();
  };
  return { server, drained };
}

/** What a task-augmented call runs: a skill's own tool, or execute_skill (its wait_ms has no use here). */
function taskExecution(target: ToolTarget, args: Record<string, unknown>): ExecuteCall["request"] {
  if (target.kind === "skill")
    return parseOrThrow(ExecuteSkillArgs, { skill_id: target.skill.skill_id, params: args });
  if (target.name === "execute_skill") {
    const { wait_ms: _, ...request } = parseOrThrow(ExecuteSkillArgs, args);
    return request;
  }
  throw new McpError(
    ErrorCode.InvalidParams,
    `${target.name} does not support task-augmented calls (its taskSupport is forbidden).`,
  );
}

/** A tool call with its arguments parsed: what the backend is asked. */
type ToolCall =
  | {
      tool: "execute";
      request: ExecuteCall["request"];
      waitMs?: number;
      /** A skill's own tool, whose structured result must match the skill's result schema. */
      ownTool?: boolean;
    }
  | { tool: "discover"; request: DiscoverRequest }
  | { tool: "get_execution"; id: string; waitMs: number };

function parseToolCall(target: ToolTarget, args: Record<string, unknown>): ToolCall {
  if (target.kind === "skill") {
    return {
      tool: "execute",
      request: parseOrThrow(ExecuteSkillArgs, { skill_id: target.skill.skill_id, params: args }),
      ownTool: true,
    };
  }
  switch (target.name) {
    case "discover_skills":
      return { tool: "discover", request: parseOrThrow(DiscoverSkillsArgs, args) };
    case "execute_skill": {
      const { wait_ms, ...request } = parseOrThrow(ExecuteSkillArgs, args);
      return { tool: "execute", request, waitMs: wait_ms };
    }
    case "get_execution": {
      const { id, wait_ms } = parseOrThrow(GetExecutionArgs, args);
      return { tool: "get_execution", id, waitMs: wait_ms };
    }
  }
}

async function runToolCall(
  backend: SkillportBackend,
  call: ToolCall,
  { signal, onProgress, onLog, idempotencyKey }: CallContext,
): Promise<CallToolResult> {
  switch (call.tool) {
    case "execute": {
      const { request, waitMs, ownTool } = call;
      const record = await backend.execute({ request, waitMs, idempotencyKey, signal, onProgress, onLog });
      return outcomeResult(record, { ownTool });
    }
    case "discover": {
      const response = await backend.discover(call.request);
      return {
        content: [{ type: "text", text: jsonText(response) }],
        structuredContent: response as unknown as Record<string, unknown>,
      };
    }
    case "get_execution":
      return recordResult(await backend.getExecution(call.id, call.waitMs, signal));
  }
}

/**
 * Skill progress as `notifications/progress` for the call's progress token. An update
 * that does not advance is dropped: MCP says the progress value MUST increase with each
 * notification, while skills may report a value twice (util.wait's last tick and its
 * "done" both say the whole wait).
 */
type ProgressSend = (notification: {
  method: "notifications/progress";
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}) => Promise<void>;

function progressSender(progressToken: ProgressToken, send: ProgressSend): (update: ProgressUpdate) => void {
  let sent = Number.NEGATIVE_INFINITY;
  return (update) => {
    if (!(update.progress > sent)) return;
    sent = update.progress;
    send({ method: "notifications/progress", params: { progressToken, ...update } }).catch(() => {});
  };
}
