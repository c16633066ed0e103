import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ProgressToken,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { SkillDetail } from "../core/answer-schemas.js";
import type { ServiceError } from "../core/errors.js";
import { shownProgress } from "../core/execution/skill-progress.js";
import type { Scope } from "../core/keys/api-key.js";
import type { LogEntry, Logger } from "../core/logger.js";
import type { ProgressUpdate } from "../core/skills/skill.js";
import type { CatalogUse, CountedCall, SkillportBackend } from "./backend.js";
import { ExecutionTaskStore } from "./execution-tasks.js";
import { serverInstructions } from "./generic-tools.js";
import { guardProtocol } from "./protocol-guard.js";
import { parseTaskCall, parseToolCall, type ToolCall } from "./tool-calls.js";
import { type SkillToolOptions, ToolCatalog, type ToolTarget } from "./tool-catalog.js";
import { errorResult, jsonRpcErrorOf, outcomeResult, recordResult, textCopyOf } from "./tool-results.js";

export interface McpServerOptions extends SkillToolOptions {
  version: string;
  logger: Logger;
  /**
   * The caller's scope, where known when the server is made (the key of an `/mcp`
   * session, of a stdio process): it decides the `instructions` sent at `initialize`.
   */
  scope?: Scope;
  /** The count made for a call before the server saw it (`/mcp`'s, by request id; see `CountedCall`). */
  countedCall?: (requestId: RequestId) => CountedCall | undefined;
}

type CallExtra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

interface CallContext {
  signal: AbortSignal;
  counted: CountedCall | undefined;
  onProgress: ((update: ProgressUpdate) => void) | undefined;
  onLog: (entry: LogEntry) => void;
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

/** The SDK's server, answering malformed requests and errors as JSON-RPC says (`guardProtocol`), on every transport. */
class GuardedServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    guardProtocol(transport);
  }
}

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
  const server = new GuardedServer(
    { name: "skillport", title: "skillport", version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        // Task-augmented tools/call (optional per tool: clients without tasks get plain results).
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: serverInstructions(options.scope),
      jsonSchemaValidator: lazyJsonSchemaValidator,
      taskStore: new ExecutionTaskStore(backend, (err) =>
        jsonRpcErrorOf(failureOf(err, "task request failed")),
      ),
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
      throw jsonRpcErrorOf(failureOf(err, "tools/list failed"));
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
    const catalog = await toolCatalog("call");
    const target = catalog.resolve(request.params.name);
    if (target) return target;
    // The hint names only tools the caller can call, so it asks for the scope (as tools/list does).
    const hint = catalog.unknownToolMessage(request.params.name, await backend.scope());
    throw new McpError(ErrorCode.InvalidParams, hint);
  }

  /**
   * What a call's run reports to, and how. A task's progress goes on after its
   * CreateTaskResult ended the request (MCP: the token lasts the task's lifetime), so it is
   * sent unrelated to that request: over HTTP, on the session's GET stream.
   */
  function callContext(request: CallToolRequest, extra: CallExtra, { task = false } = {}): CallContext {
    const progressToken = request.params._meta?.progressToken;
    let open = true;
    const send: ProgressSend = task
      ? (notification) => server.notification(notification)
      : extra.sendNotification;
    const sendProgress = progressToken === undefined ? undefined : progressSender(progressToken, send);
    return {
      signal: extra.signal,
      counted: options.countedCall?.(extra.requestId),
      onProgress: sendProgress && ((update) => open && sendProgress(update)),
      close: () => {
        open = false;
      },
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
   * Resolves the tool and parses the call (its arguments, its idempotency key). A call
   * refused here never reaches the backend, yet counts against the key's limits like any
   * tools/call (contract.md), and a key over its limit hears that first, as on `/v1`.
   */
  async function prepare<T>(
    request: CallToolRequest,
    parse: (target: ToolTarget, params: CallToolRequest["params"]) => T,
    counted: CountedCall | undefined,
  ): Promise<T> {
    try {
      return parse(await resolveTool(request), request.params);
    } catch (err) {
      await backend.countRefusedCall(counted);
      throw err;
    }
  }

  /** The contract's error for what a call threw; a bug is logged with its cause (`errorOf` logs an outage). */
  function failureOf(err: unknown, what: string, tool?: string): ServiceError {
    const error = backend.errorOf(err);
    if (error.code === "internal_error") options.logger.error({ err, tool }, what);
    return error;
  }

  async function answerCall(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    const context = callContext(request, extra);
    try {
      return await runToolCall(backend, await prepare(request, parseToolCall, context.counted), context);
    } catch (err) {
      if (err instanceof McpError) throw err;
      return errorResult(failureOf(err, "tool call failed", request.params.name), request.params.name);
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
    const { onProgress, onLog, counted } = callContext(request, extra, { task: true });
    if (!extra.taskStore) throw new McpError(ErrorCode.InternalError, "tasks are not available");
    // Checked before the execution starts: a task that could not be kept must not run.
    const ttl = request.params.task?.ttl;
    if (ttl !== undefined && ttl !== null && !(Number.isInteger(ttl) && ttl >= 0)) {
      throw new McpError(ErrorCode.InvalidParams, "task.ttl: a whole number of milliseconds, at least 0");
    }
    try {
      const { request: execution, idempotencyKey } = await prepare(request, parseTaskCall, counted);
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
        counted,
      });
      const task = await extra.taskStore.createTask({ ttl: request.params.task?.ttl, context: { record } });
      return { task };
    } catch (err) {
      if (err instanceof McpError) throw err;
      throw jsonRpcErrorOf(failureOf(err, "task failed to start", request.params.name), request.params.name);
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

async function runToolCall(
  backend: SkillportBackend,
  call: ToolCall,
  { signal, onProgress, onLog, counted }: CallContext,
): Promise<CallToolResult> {
  switch (call.tool) {
    case "execute": {
      const { request, waitMs, idempotencyKey, ownTool } = call;
      const record = await backend.execute({
        request,
        waitMs,
        idempotencyKey,
        signal,
        onProgress,
        onLog,
        counted,
      });
      return outcomeResult(record, { ownTool });
    }
    case "discover": {
      const { answer, json } = await backend.discover(call.request, counted);
      return {
        content: [{ type: "text", text: textCopyOf(json) }],
        structuredContent: answer as unknown as Record<string, unknown>,
      };
    }
    case "get_execution": {
      // A poll relays the run's progress while it waits, as the call that started it did.
      const { id, waitMs } = call;
      return recordResult(await backend.getExecution({ id, waitMs, signal, onProgress, counted }));
    }
  }
}

/** Sends a progress notification: to the call's request, or unrelated to any (a task's). */
type ProgressSend = (notification: {
  method: "notifications/progress";
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}) => Promise<void>;

/**
 * Skill progress as `notifications/progress` for the call's progress token. An update
 * that does not advance is dropped: MCP says the progress value MUST increase with each
 * notification, while skills may report a value twice (util.wait's last tick and its
 * "done" both say the whole wait).
 */
function progressSender(progressToken: ProgressToken, send: ProgressSend): (update: ProgressUpdate) => void {
  let sent = Number.NEGATIVE_INFINITY;
  return (update) => {
    if (!(update.progress > sent)) return;
    sent = update.progress;
    send({ method: "notifications/progress", params: { progressToken, ...shownProgress(update) } }).catch(
      () => {},
    );
  };
}
