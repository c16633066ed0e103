import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ErrorBody, errorBody } from "../core/errors.js";
import { readCallerJson } from "../core/unsafe-json.js";
import { safeParseInWords } from "../core/validation.js";

/** A line that is no JSON-RPC message, and the error that answers it (JSON-RPC 2.0, section 5.1). */
export interface MalformedMessage {
  /** The request's id when it had a usable one; null otherwise, as JSON-RPC says. */
  id: string | number | null;
  code: ErrorCode.ParseError | ErrorCode.InvalidRequest;
  message: string;
  /** The contract's error, for a refusal of skillport's own (`readCallerJson`), as `paramsRefusal` sends one. */
  data?: ErrorBody;
}

/** A line that is a JSON-RPC message: the message, as the SDK's stdio transport would read it. */
export interface ParsedMessage {
  parsed: JSONRPCMessage;
}

/**
 * What one line of stdin is, read as the SDK's stdio transport reads a line (`JSON.parse`,
 * then `JSONRPCMessageSchema`), which drops one that fails, telling only its `onerror`: the
 * client then waits for its timeout. The message, parsed once here for
 * the server (`GuardedStdioTransport`); `"blank"`: no message at all (nothing to answer);
 * else the error to answer it with: -32700 for a line that is not JSON, -32600 for JSON
 * that is no JSON-RPC message. Only a request (a `method` with an `id`) is answered for its
 * id: an answer to a malformed response's id would settle the client's own request of that id.
 */
export function checkLine(line: string): ParsedMessage | "blank" | MalformedMessage {
  // As the transport reads a line: its newline and a carriage return before it are no part of it.
  // (Sliced by hand: every message of the session comes through here.)
  let end = line.length;
  if (line.charCodeAt(end - 1) === NEWLINE) {
    end--;
    if (line.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
  }
  if (line.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
  const text = end === line.length ? line : line.slice(0, end);
  if (isBlank(text)) return "blank";
  // By the rule `/mcp` and `/v1` read a body by, before the SDK's schemas drop or keep a prototype key.
  const read = readCallerJson(text);
  if (read.kind === "not json") {
    // Said as `/mcp` says it of a body: where and why, not JSON.parse's words, which quote the line.
    const why = read.fault ?? "it does not parse";
    return {
      id: null,
      code: ErrorCode.ParseError,
      message: `Parse error: the line is not JSON (${why}); send one JSON-RPC message a line.`,
    };
  }
  const { value } = read;
  if (read.kind === "refused") {
    return {
      id: requestIdOf(value),
      code: ErrorCode.InvalidRequest,
      message: `${read.error.code}: ${read.error.message}`,
      data: errorBody(read.error),
    };
  }
  const message = JSONRPCMessageSchema.safeParse(value);
  if (message.success) return { parsed: message.data };
  return {
    id: requestIdOf(value),
    code: ErrorCode.InvalidRequest,
    message: `invalid_request: ${invalidReason(value)}`,
  };
}

/**
 * What is wrong with a parsed `/mcp` POST body (the message of its `invalid_request`), said
 * as `checkLine` says it of a line; none when it is a JSON-RPC message, or a batch of them
 * (which Streamable HTTP takes from clients of protocol 2025-03-26). The SDK's transport
 * answered all of these -32700, "Parse error", which JSON-RPC keeps for a body that is no JSON.
 */
export function httpBodyProblem(body: unknown): string | undefined {
  // No body at all (the parser reads an empty one as none) is told so, not taken for no problem.
  if (body === undefined) return "the request body is empty: send one JSON-RPC message.";
  const messages = Array.isArray(body) ? body : [body];
  const malformed = messages.findIndex((message) => !JSONRPCMessageSchema.safeParse(message).success);
  return malformed === -1 ? undefined : invalidReason(messages[malformed]);
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const NON_BLANK = /\S/;

/** Whether `text` is only white space, as `text.trim() === ""` says, without the trimmed copy. */
function isBlank(text: string): boolean {
  return !NON_BLANK.test(text);
}

function requestIdOf(value: unknown): string | number | null {
  if (typeof value !== "object" || value === null || !("method" in value) || !("id" in value)) return null;
  const { id } = value;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** Says what is wrong, by the part of the message that is (never its values). */
function invalidReason(value: unknown): string {
  const prefix = "the message is not a JSON-RPC 2.0 message";
  if (Array.isArray(value)) return `${prefix} (a batch is not accepted: send one message a line).`;
  if (typeof value !== "object" || value === null) return `${prefix} (it must be a JSON object).`;
  if (!("jsonrpc" in value) || value.jsonrpc !== "2.0") return `${prefix} ("jsonrpc" must be "2.0").`;
  if (!("method" in value)) return `${prefix}.`;
  const schema = "id" in value ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
  const issue = safeParseInWords(schema, value).error?.issues[0];
  if (issue === undefined) return `${prefix}.`;
  const where = issue.path.length > 0 ? issue.path.join(".") : "the message";
  return `${prefix} (${where}: ${issue.message}).`;
}
