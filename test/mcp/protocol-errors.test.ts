import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CreatedKey, type Json, startServer, type TestServer } from "../contract/harness.js";
import { type ConnectedClient, connectMcp, type McpTransportKind } from "./mcp-clients.js";
import { textOf } from "./tool-result-text.js";

/**
 * The JSON-RPC errors an agent's client gets from skillport, in every mode, with the SDK's
 * real client: a code that says whose fault it is, and a message that is the text an
 * `isError` result would have, said once.
 */
describe.each<McpTransportKind>(["stdio", "http", "remote"])("JSON-RPC errors over %s", (kind) => {
  let server: TestServer;
  let key: CreatedKey;
  let mcp: ConnectedClient;
  let client: Client;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey({ name: `errors-${kind}` });
    mcp = await connectMcp(kind, server, key.secret);
    client = mcp.client;
  });

  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
  });

  /** What the client rejected `promise` with: its code and message. */
  async function refusalOf(promise: Promise<unknown>): Promise<{ code: unknown; message: string }> {
    try {
      await promise;
    } catch (err) {
      return { code: (err as { code?: unknown }).code, message: (err as Error).message };
    }
    throw new Error("expected a JSON-RPC error");
  }

  // Regression: the server sent the SDK's McpError message, which already reads "MCP error
  // -32602: …", and the client's McpError said it again: "MCP error -32602: MCP error -32602:
  // Unknown tool …", and a task's refusal was not the text its isError result would have.
  it("sends an unknown tool's refusal as its text alone, which the client prefixes once", async () => {
    const refusal = await refusalOf(client.callTool({ name: "no_such_tool", arguments: {} }));
    expect(refusal).toEqual({
      code: ErrorCode.InvalidParams,
      message:
        'MCP error -32602: Unknown tool "no_such_tool"; call tools/list, or discover_skills and execute_skill.',
    });
  });

  it("refuses a task-augmented call with the text the same plain call's isError result has", async () => {
    const args: Json = { expression: 42 };
    const plain = (await client.callTool({ name: "math_evaluate", arguments: args })) as CallToolResult;
    expect(plain.isError).toBe(true);
    const refusal = await refusalOf(
      client.request(
        { method: "tools/call", params: { name: "math_evaluate", arguments: args, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      ),
    );
    expect(refusal).toEqual({ code: ErrorCode.InvalidParams, message: `MCP error -32602: ${textOf(plain)}` });
  });

  // The SDK's own refusals too: tasks/get is answered by its handler.
  it("answers tasks/get of an unknown task with its message said once", async () => {
    const refusal = await refusalOf(client.experimental.tasks.getTask("exec_unknown"));
    expect(refusal.message).toBe("MCP error -32602: Failed to retrieve task: Task not found");
  });

  // Regression: params that do not fit their method were answered -32603 (Internal error:
  // a bug of the server's, by JSON-RPC) whose message was zod's issues as a JSON dump.
  it("answers params that do not fit their method with invalid params, saying where and what", async () => {
    const cases: [method: string, params: Json, where: string][] = [
      [
        "tools/call",
        { name: "math_evaluate", arguments: '{"expression":"1+1"}' },
        "params.arguments: must be a JSON object, not a string holding JSON",
      ],
      ["tools/call", { arguments: {} }, "params.name: is required (a string)"],
      ["logging/setLevel", { level: "loud" }, "params.level: must be one of: debug, info"],
    ];
    for (const [method, params, where] of cases) {
      const refusal = await refusalOf(client.request({ method, params } as never, CallToolResultSchema));
      expect(refusal.code).toBe(ErrorCode.InvalidParams);
      expect(refusal.message).toContain(
        `MCP error -32602: invalid_params: ${method} was sent params its schema refuses (${where}`,
      );
    }
    // The session goes on.
    const result = await client.callTool({ name: "math_evaluate", arguments: { expression: "1+1" } });
    expect(result.structuredContent).toMatchObject({ value: 2 });
  });

  // Keeps the client honest: a plain call still answers as before.
  it("still answers a plain call", async () => {
    const result = await client.callTool(
      { name: "math_evaluate", arguments: { expression: "6*7" } },
      CallToolResultSchema,
    );
    expect(result.structuredContent).toMatchObject({ value: 42 });
  });
});
