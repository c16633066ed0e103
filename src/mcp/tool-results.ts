import {
  type CallToolResult,
  ErrorCode as JsonRpcErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "../core/api-schemas.js";
import { type ErrorCode, type ExecutionErrorCode, errorBody, ServiceError } from "../core/errors.js";
import { type ExecutionRecord, isTerminal } from "../core/execution/record.js";

/**
 * Tool results as an agent reads them. Failures are `isError` results, never protocol
 * errors (contract.md), and their text starts with the error code, then says what to do;
 * only a refusal MCP has no result for is a JSON-RPC error (`jsonRpcErrorOf`), saying the same.
 */

const EXECUTION_ID_META = "skillport/execution_id";
/** Lets a retrying client make a skill call at most once, as `Idempotency-Key` does on `/v1`. */
export const IDEMPOTENCY_META = "skillport/idempotency_key";
/**
 * The longest JSON repeated as text beside `structuredContent` (characters). MCP asks for
 * the copy, for clients that read text only; but a result may hold 8 MiB, twice that
 * passed the 10 MiB a message may have in the SDK's stdio client, which then drops the
 * connection and every call on it. Past this, the text says where the result is.
 */
const TEXT_COPY_MAX_CHARS = 1 << 20;
/** Where a failure's code and message are, as data (README: `_meta["skillport/error"]`). */
const ERROR_META = "skillport/error";

/**
 * A skill's outcome: its result when completed, an error when not, the record while
 * running (a skill's own tool: see `stillRunningResult`).
 */
export function outcomeResult(record: ExecutionRecord, { ownTool = false } = {}): CallToolResult {
  if (!isTerminal(record.status)) return ownTool ? stillRunningResult(record) : runningResult(record);
  const meta = { [EXECUTION_ID_META]: record.id };
  if (record.status === "completed" && record.result) {
    return {
      content: [{ type: "text", text: jsonText(record.result) }],
      structuredContent: record.result,
      _meta: meta,
    };
  }
  const error = runError(record);
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${error.code}: ${error.message}\n${whatToDo(error.code, record, ownTool)}\nexecution_id: ${record.id}`,
      },
    ],
    _meta: { ...meta, [ERROR_META]: error },
  };
}

/**
 * What to do after a run that ended without success. A skill's own tool takes only the
 * skill's params: its runs have the default timeout, and a longer one is asked for through
 * execute_skill.
 */
function whatToDo(code: ExecutionErrorCode, record: ExecutionRecord, ownTool: boolean): string {
  if (ownTool && code === "execution_timeout") {
    return `The run ran out of time (this tool's runs have the default timeout, ${DEFAULT_TIMEOUT_MS} ms): for longer, call execute_skill with skill_id ${JSON.stringify(record.skill_id)}, these params and a larger timeout_ms (up to ${MAX_TIMEOUT_MS}), or ask for less.`;
  }
  return WHAT_TO_DO[code];
}

/**
 * What an agent can do about a failure, by its error code: every way a run ends without
 * success, and the refusals an agent can act on (limits say when to retry instead).
 */
const WHAT_TO_DO: Record<ExecutionErrorCode, string> & Partial<Record<ErrorCode, string>> = {
  execution_failed:
    "The skill ran and failed: if the message names what was wrong with the arguments, change that before calling again; otherwise calling again would fail the same way.",
  execution_timeout: `The run ran out of time: call again with a larger timeout_ms (up to ${MAX_TIMEOUT_MS}), or ask for less.`,
  execution_cancelled: "The run was cancelled: call again only if it is still wanted.",
  execution_interrupted: "The service stopped while it ran: calling again starts a new run.",
  invalid_params:
    "Fix the arguments where shown (the tool's inputSchema says what each takes), then call again.",
  invalid_request: "Fix the arguments where shown, then call again.",
  skill_not_found: "Call discover_skills to find the id of a skill that does this.",
  execution_not_found: "Use the execution_id a call of this key returned.",
  execution_not_cancellable: "The execution has ended: get_execution has its outcome.",
  insufficient_scope: "This key may only discover skills: running them needs a full-access key.",
  idempotency_key_reused: "Use a new idempotency key for different arguments.",
  idempotency_in_progress:
    "The first call with this idempotency key is still running: call again once it ends.",
  payload_too_large: "Send less in one call.",
  // Said of a call whose answer may have been lost after its run started (remote mode, when
  // the connection broke), as well as of one refused before: only the idempotency key tells.
  service_unavailable: `The service could not answer: call again shortly. A call that runs a skill may have started its run before its answer was lost: called again with the same _meta["${IDEMPOTENCY_META}"] as before (when it had one), it does not run twice; without one, it may.`,
};

/** `value` as JSON text, or where to read it when it is too long to repeat (`TEXT_COPY_MAX_CHARS`). */
export function jsonText(value: unknown): string {
  return textCopyOf(JSON.stringify(value));
}

/** JSON text already written, as a result's text repeats it (`jsonText`'s rule on length). */
export function textCopyOf(json: string): string {
  if (json.length <= TEXT_COPY_MAX_CHARS) return json;
  return `${json.length} characters of JSON, too long to repeat as text: read them from structuredContent.`;
}

/** A finished record's error; one that ended without success always has one. */
function runError(record: ExecutionRecord): { code: ExecutionErrorCode; message: string } {
  return record.error ?? { code: "execution_failed", message: `The execution ended ${record.status}.` };
}

/** The record itself (`get_execution`); an error result when it ended without success. */
export function recordResult(record: ExecutionRecord): CallToolResult {
  const failed = isTerminal(record.status) && !record.success;
  const error = failed ? runError(record) : undefined;
  const summary = error ? `${error.code}: ${error.message}\n${WHAT_TO_DO[error.code]}\n` : "";
  return {
    ...(failed ? { isError: true } : {}),
    content: [{ type: "text", text: `${summary}${jsonText(record)}` }],
    structuredContent: record,
    _meta: { [EXECUTION_ID_META]: record.id, ...(error ? { [ERROR_META]: error } : {}) },
  };
}

function runningResult(record: ExecutionRecord): CallToolResult {
  return {
    content: [
      {
        type: "text",
        text: `The execution is still ${record.status}; call get_execution with id "${record.id}" (and wait_ms) for its result.\n${jsonText(record)}`,
      },
    ],
    structuredContent: record,
    _meta: { [EXECUTION_ID_META]: record.id },
  };
}

/**
 * A run a skill's own tool started but could not follow to its end (`--remote`, when the
 * stream is refused for the key's limit). The tool's structured result must match the
 * skill's result schema (its `outputSchema`), which a record does not: clients reject
 * such an answer. So it is an `isError` result, whose text says that the run goes on and
 * must not be started again, and how to get its result.
 */
function stillRunningResult(record: ExecutionRecord): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `The execution ${record.id} was started and is still ${record.status}: do not call this tool again (that would run it twice); call get_execution with id "${record.id}" (and wait_ms) for its result.`,
      },
    ],
    _meta: { [EXECUTION_ID_META]: record.id },
  };
}

/**
 * A refused call of the tool `toolName`: the code, the message, where the input was wrong,
 * when to retry.
 */
export function errorResult(error: ServiceError, toolName?: string): CallToolResult {
  const shown = asCalled(error, toolName);
  return {
    isError: true,
    content: [{ type: "text", text: errorText(shown, toolName) }],
    _meta: { [ERROR_META]: errorBody(shown) },
  };
}

/**
 * What to do about invalid params sent through execute_skill: its own inputSchema takes any
 * object as `params`; what the skill takes is in the skill's params schema.
 */
const FIX_SKILL_PARAMS =
  "Fix the params where shown (the skill's params schema says what each takes: discover_skills shows it, and so does the skill's own tool where it has one), then call again.";

/**
 * A refusal as the tool called sees it. Through execute_skill the skill's params are its
 * `params` argument, so the places the core names in them (`value`) are shown under it
 * (`params.value`), in the text and in `_meta` alike.
 */
function asCalled(error: ServiceError, toolName: string | undefined): ServiceError {
  const idempotency = idempotencyRefusal(error);
  if (idempotency) return idempotency;
  if (toolName !== "execute_skill" || error.code !== "invalid_params" || !error.details) return error;
  const underParams = (path: string) => (path === "(root)" ? "params" : `params.${path}`);
  const [first] = error.details;
  const saysFirst = first !== undefined && error.message === `${first.path}: ${first.message}`;
  return new ServiceError(error.code, {
    message: saysFirst ? `${underParams(first.path)}: ${first.message}` : error.message,
    details: error.details.map(({ path, message }) => ({ path: underParams(path), message })),
    retryAfterSeconds: error.retryAfterSeconds,
    executionId: error.executionId,
    cause: error,
  });
}

/**
 * An idempotency refusal in the call's terms: the core (or, remote, the server) says it of
 * REST's `Idempotency-Key` header and request body, which a tool call has neither of: its
 * key is the `_meta` member, and what the key stands for is the skill, params and timeout.
 */
function idempotencyRefusal(error: ServiceError): ServiceError | undefined {
  const member = `_meta[${JSON.stringify(IDEMPOTENCY_META)}]`;
  const { code, executionId } = error;
  let message: string;
  if (code === "idempotency_key_reused") {
    message = `The idempotency key in ${member} was used for another request: a call of another skill, or with other params or another timeout_ms (or a POST /v1/execute sent otherwise).`;
  } else if (code === "idempotency_in_progress") {
    const run = executionId === undefined ? "" : `: execution ${executionId}`;
    message = `The first call with the idempotency key in ${member} is still being processed${run}.`;
  } else {
    return undefined;
  }
  return new ServiceError(code, {
    message,
    retryAfterSeconds: error.retryAfterSeconds,
    executionId,
    cause: error,
  });
}

/**
 * The JSON-RPC error code of a refusal that cannot be an `isError` result (tools/list, a
 * task's creation, the tasks/ requests). A server fault, a bug or a store outage, is the
 * server's (-32603, never the client's: STYLE.md §2); what names a tool's target or
 * arguments wrongly is invalid params; anything else (a key refused, over its limit, a
 * shutdown) is a request that cannot be served as it stands.
 */
const JSON_RPC_CODES: Partial<Record<ErrorCode, JsonRpcErrorCode>> = {
  internal_error: JsonRpcErrorCode.InternalError,
  service_unavailable: JsonRpcErrorCode.InternalError,
  invalid_params: JsonRpcErrorCode.InvalidParams,
  skill_not_found: JsonRpcErrorCode.InvalidParams,
  execution_not_found: JsonRpcErrorCode.InvalidParams,
};

/**
 * A refusal as a JSON-RPC error (of a call of `toolName`, if any): the same text as an
 * `isError` result, the contract's fields as its data.
 */
export function jsonRpcErrorOf(error: ServiceError, toolName?: string): McpError {
  const code = JSON_RPC_CODES[error.code] ?? JsonRpcErrorCode.InvalidRequest;
  const shown = asCalled(error, toolName);
  return new McpError(code, errorText(shown, toolName), errorBody(shown));
}

/**
 * What to do about a refused key, fitting the refusal's own message. "Revoked or expired"
 * only when the server says the key is unknown, revoked or expired: a malformed key (its
 * tag, length, a character or its checksum) or two Authorization headers are fixed where
 * the key is configured, and told it had stopped working its user went looking for a
 * revocation that never happened. The message says what is wrong; the key is never repeated.
 */
function refusedKeyHint(message: string): string {
  const stoppedWorking = /\b(unknown|revoked|expired)\b/i.test(message) && !/\bmalformed\b/i.test(message);
  return stoppedWorking
    ? "The key stopped working (revoked or expired): the assistant needs a new one."
    : "Fix the key where the assistant's configuration sets it, as the message above says.";
}

/** An error as an agent reads it: the code and message, where and what was expected, when to retry. */
function errorText(error: ServiceError, toolName?: string): string {
  const lines = [`${error.code}: ${error.message}`];
  for (const { path, message } of error.details ?? []) {
    // parseOrThrow's message already is the first detail; say each place once.
    if (error.message !== `${path}: ${message}`) lines.push(`- ${path}: ${message}`);
  }
  const throughExecuteSkill = toolName === "execute_skill" && error.code === "invalid_params";
  const whatToDo = throughExecuteSkill
    ? FIX_SKILL_PARAMS
    : error.code === "invalid_api_key"
      ? refusedKeyHint(error.message)
      : WHAT_TO_DO[error.code];
  if (whatToDo) lines.push(whatToDo);
  if (error.executionId !== undefined) {
    lines.push(`To follow it instead: call get_execution with id "${error.executionId}" (and wait_ms).`);
  }
  if (error.retryAfterSeconds !== undefined) lines.push(`Retry after ${error.retryAfterSeconds} s.`);
  return lines.join("\n");
}
