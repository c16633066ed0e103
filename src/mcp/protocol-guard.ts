import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ClientRequestSchema,
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { safeParseInWords, toErrorDetails } from "../core/validation.js";

/** The schema of each request a client may send, by method (`tools/call` → `CallToolRequestSchema`). */
const REQUEST_SCHEMAS = new Map<string, (typeof ClientRequestSchema.options)[number]>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/** Methods of features skillport does not offer: the SDK answers them -32601, whatever their params. */
const UNSERVED_METHOD = /^(prompts|resources|completion)\//;

/**
 * Sets the server's connected `transport` (stdio or an `/mcp` session) to answer as JSON-RPC
 * and MCP say, where the SDK's server does not:
 * - a request whose params its method's schema refuses (`arguments` that are no object, a
 *   `tools/call` without `name`) is invalid params (-32602), saying where and what; the SDK
 *   parses them only inside its handler, and answered -32603 (Internal error, a server bug
 *   by JSON-RPC) with zod's issues as a JSON dump;
 * - an error's message is its text alone: the SDK's `McpError` reads "MCP error -32602: …"
 *   and its server sends that as the message, which the client's `McpError` prefixes again
 *   ("MCP error -32602: MCP error -32602: Unknown tool …").
 * Called once `Server.connect` has set the transport's message handler.
 */
export function guardProtocol(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withMessageSaidOnce(message), options);
  const handle = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) ? paramsRefusal(message) : undefined;
    if (refusal) transport.send(refusal).catch((err: Error) => transport.onerror?.(err));
    else handle?.(message, extra);
  };
}

/** The answer to `request` when its params do not fit its method; none when they do, or the method is not served. */
export function paramsRefusal(request: JSONRPCRequest): JSONRPCErrorResponse | undefined {
  const schema = UNSERVED_METHOD.test(request.method) ? undefined : REQUEST_SCHEMAS.get(request.method);
  if (!schema) return undefined;
  const parsed = safeParseInWords(schema, request);
  if (parsed.success) return undefined;
  const details = toErrorDetails(parsed.error, schema, request);
  const where = details.map(({ path, message }) => `${path}: ${message}`).join("; ");
  const message = `${request.method} was sent params its schema refuses (${where}).`;
  return {
    jsonrpc: "2.0",
    id: request.id,
    // As a refusal of skillport's own: the code first, the contract's fields as data.
    error: {
      code: ErrorCode.InvalidParams,
      message: `invalid_params: ${message}`,
      data: { code: "invalid_params", message, details },
    },
  };
}

function withMessageSaidOnce(message: JSONRPCMessage): JSONRPCMessage {
  // `in` first: the schema check parses the whole message, and almost every one is no error.
  if (!("error" in message) || !isJSONRPCErrorResponse(message)) return message;
  const prefix = `MCP error ${message.error.code}: `;
  if (!message.error.message.startsWith(prefix)) return message;
  return { ...message, error: { ...message.error, message: message.error.message.slice(prefix.length) } };
}
