import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import { type ConnectedClient, connectMcp, type McpTransportKind } from "./mcp-clients.js";

/**
 * Task-augmented tools/call (MCP tasks, the SDK's experimental support) over both
 * transports and the remote bridge: a task is the execution its call started.
 */
describe.each<McpTransportKind>(["stdio", "http", "remote"])("MCP tasks over %s", (kind) => {
  let server: TestServer;
  let key: CreatedKey;
  let mcp: ConnectedClient;
  let client: Client;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey({ name: `tasks-${kind}` });
    mcp = await connectMcp(kind, server, key.secret);
    client = mcp.client;
  });

  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
  });

  /** Starts a task-augmented call and returns its task. */
  const startTask = async (name: string, args: Record<string, unknown>) =>
    (
      await client.request(
        { method: "tools/call", params: { name, arguments: args, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      )
    ).task;
  const recordOf = async (id: string) =>
    bodyOf<ExecutionRecord>(await server.request("GET", `/v1/executions/${id}`, { key: key.secret }));

  it("announces tasks for tools/call, and lets the tools that run skills be called as tasks", async () => {
    expect(client.getServerCapabilities()?.tasks).toMatchObject({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport]));
    expect(support).toMatchObject({
      discover_skills: undefined,
      execute_skill: "optional",
      get_execution: undefined,
      math_evaluate: "optional",
      util_wait: "optional",
    });
  });

  it("runs a task to the same result a plain call gives, the task id being the execution's", async () => {
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "util_wait", arguments: { ms: 300 } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message);
    }
    const created = messages.find((message) => message.type === "taskCreated");
    const last = messages.at(-1);
    if (created?.type !== "taskCreated" || last?.type !== "result") throw new Error(JSON.stringify(messages));
    expect(last.result.structuredContent).toEqual({ waited_ms: 300 });
    const taskId = created.task.taskId;
    expect(await recordOf(taskId)).toMatchObject({
      id: taskId,
      status: "completed",
      result: { waited_ms: 300 },
    });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({
      taskId,
      status: "completed",
      ttl: 60_000,
    });
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((task) => task.taskId)).toContain(taskId);
  });

  it("reports a failed execution as a failed task whose result is an isError tool result", async () => {
    const task = await startTask("execute_skill", {
      skill_id: "math.evaluate",
      params: { expression: "6*" },
    });
    const result = (await client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^execution_failed: /),
    });
    const done = await client.experimental.tasks.getTask(task.taskId);
    expect(done).toMatchObject({
      status: "failed",
      statusMessage: expect.stringMatching(/^execution_failed: /),
    });
  });

  it("cancels the execution on tasks/cancel", async () => {
    const task = await startTask("util_wait", { ms: 60_000 });
    expect(task.status).toBe("working");
    await client.experimental.tasks.cancelTask(task.taskId);
    const record = await eventually(async () => {
      const current = await recordOf(task.taskId);
      return current.status === "cancelled" ? current : undefined;
    });
    expect(record.error?.code).toBe("execution_cancelled");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
  });

  it("refuses a task for a tool that does not run a skill, and bad params, as protocol errors", async () => {
    await expect(startTask("discover_skills", { query: "send a message" })).rejects.toThrow(
      /does not support task-augmented calls/,
    );
    await expect(startTask("math_evaluate", { expression: 42 })).rejects.toThrow(/invalid_params/);
  });

  it("keeps a task to the session that created it", async () => {
    const task = await startTask("math_evaluate", { expression: "1+1" });
    const other = await connectMcp(kind, server, key.secret);
    try {
      await expect(other.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    } finally {
      await other.close();
    }
  });
});
