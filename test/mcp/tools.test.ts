import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { DiscoverResponseSchema } from "../../src/core/answer-schemas.js";
import { withoutDialect } from "../../src/core/json-schema-dialect.js";
import {
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  type Json,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import { type ConnectedClient, connectMcp, type McpTransportKind } from "./mcp-clients.js";
import { receivedMessages } from "./received-messages.js";
import { textOf } from "./tool-result-text.js";

/**
 * contract.md, "MCP surface", held over both transports and the remote bridge with the
 * SDK's real client: the same tools, the same answers, the same records and limits as `/v1`.
 */
describe.each<McpTransportKind>(["stdio", "http", "remote"])("MCP over %s", (kind) => {
  let server: TestServer;
  let key: CreatedKey;
  let mcp: ConnectedClient;
  let client: Client;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey({ name: `mcp-${kind}` });
    mcp = await connectMcp(kind, server, key.secret);
    client = mcp.client;
  });

  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
  });

  const call = async (name: string, args: Json, options: Parameters<Client["callTool"]>[2] = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  const executionIdOf = (result: CallToolResult) => result._meta?.["skillport/execution_id"] as string;

  it("lists the generic tools and one tool per skill, with names LLM APIs accept", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names.slice(0, 3)).toEqual(["discover_skills", "execute_skill", "get_execution"]);
    expect(names).toEqual(expect.arrayContaining(["math_evaluate", "util_wait", "message_send"]));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    for (const tool of tools.slice(0, 3)) expect(tool._meta?.["anthropic/alwaysLoad"]).toBe(true);
    // The arguments contract.md names for each generic tool.
    const argumentsOf = (name: string) =>
      Object.keys(tools.find((tool) => tool.name === name)?.inputSchema.properties ?? {}).sort();
    expect(argumentsOf("discover_skills")).toEqual(["limit", "query", "tags"]);
    expect(argumentsOf("execute_skill")).toEqual(["params", "skill_id", "timeout_ms", "wait_ms"]);
    expect(argumentsOf("get_execution")).toEqual(["id", "wait_ms"]);
    // Every other tool is one skill's: its name the skill id with each character outside
    // [A-Za-z0-9_-] replaced by `_`, at most 64 characters, the id itself in _meta.
    const skillTools = tools.slice(3);
    expect(skillTools.length).toBeGreaterThan(0);
    for (const tool of skillTools) {
      const skillId = tool._meta?.["skillport/skill_id"];
      expect(skillId, tool.name).toBeTypeOf("string");
      expect(tool.name).toBe(
        String(skillId)
          .replace(/[^A-Za-z0-9_-]/g, "_")
          .slice(0, 64),
      );
    }
  });

  it("derives each skill tool from the skill: schemas, annotations and its id in _meta", async () => {
    const { tools } = await client.listTools();
    const math = tools.find((tool) => tool.name === "math_evaluate");
    expect(math?._meta?.["skillport/skill_id"]).toBe("math.evaluate");
    const skill = bodyOf<Json>(await server.request("GET", "/v1/skills/math.evaluate", { key: key.secret }));
    // The same schemas, without the `$schema` that MCP leaves out (2020-12 is its default)
    // and that /v1 keeps (audit 25, finding 4).
    const { $schema: paramsDialect, ...params } = skill.params as Json;
    const { $schema: resultDialect, ...result } = skill.result as Json;
    expect([paramsDialect, resultDialect]).toEqual(
      Array(2).fill("https://json-schema.org/draft/2020-12/schema"),
    );
    expect(math?.inputSchema).toEqual(params);
    expect(math?.outputSchema).toEqual(result);
    expect(math?.description).toBe(skill.description);
    const annotations = skill.annotations as Record<string, boolean>;
    expect(math?.annotations).toMatchObject({
      title: skill.name,
      readOnlyHint: annotations.readOnly,
      destructiveHint: annotations.destructive,
      idempotentHint: annotations.idempotent,
      openWorldHint: annotations.openWorld,
    });
    // Every skill's tool, not only math's: each derived from its skill as /v1 lists it.
    const catalog = bodyOf<{ data: Json[] }>(
      await server.request("GET", "/v1/skills?limit=100", { key: key.secret }),
    ).data;
    const skillTools = tools.filter((tool) => tool._meta?.["skillport/skill_id"] !== undefined);
    expect(skillTools).toHaveLength(catalog.length);
    for (const tool of skillTools) {
      const listed = catalog.find((entry) => entry.skill_id === tool._meta?.["skillport/skill_id"]);
      if (!listed) throw new Error(`${tool.name}: no skill of its id in GET /v1/skills`);
      const { $schema: _params, ...listedParams } = listed.params as Json;
      const { $schema: _result, ...listedResult } = listed.result as Json;
      const hints = listed.annotations as Record<string, boolean>;
      expect(tool.inputSchema, tool.name).toEqual(listedParams);
      expect(tool.outputSchema, tool.name).toEqual(listedResult);
      expect(tool.annotations, tool.name).toMatchObject({
        title: listed.name,
        readOnlyHint: hints.readOnly,
        destructiveHint: hints.destructive,
        idempotentHint: hints.idempotent,
        openWorldHint: hints.openWorld,
      });
    }
    const send = tools.find((tool) => tool.name === "message_send");
    expect(send?.annotations?.readOnlyHint).toBe(false);
    // Regression (audit 22, MCP #5): it can DELETE, PUT and PATCH, and clients confirm tools
    // marked destructive.
    expect(tools.find((tool) => tool.name === "http_request")?.annotations?.destructiveHint).toBe(true);
  });

  // Regression (audit 22, MCP #2): get_execution took wait_ms up to 60000, answered just as the
  // SDK client gave up on the request, so the longest documented wait always failed.
  it("offers get_execution waits that end well within the SDK client's request timeout", async () => {
    const { tools } = await client.listTools();
    const getExecution = tools.find((tool) => tool.name === "get_execution");
    const waitMs = getExecution?.inputSchema.properties?.wait_ms as { maximum?: number };
    expect(waitMs.maximum).toBeLessThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MSEC - 10_000);
    const refused = await call("get_execution", { id: "exec_x", wait_ms: DEFAULT_REQUEST_TIMEOUT_MSEC });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(`invalid_request: wait_ms: must be at most ${waitMs.maximum}\n`);
  });

  it("runs a skill tool as one execution, whose record REST shows afterwards", async () => {
    const result = await call("math_evaluate", { expression: "2 + 3 * 4" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ value: 14 });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    const id = executionIdOf(result);
    const record = bodyOf<ExecutionRecord>(
      await server.request("GET", `/v1/executions/${id}`, { key: key.secret }),
    );
    expect(record).toMatchObject({ skill_id: "math.evaluate", status: "completed", result: { value: 14 } });
  });

  it("keeps a result key named __proto__ (a CSV column) in structuredContent and the text", async () => {
    const result = await call("csv_to_json", { csv: "id,__proto__\n1,x\n" });
    expect(result.isError).toBeFalsy();
    const [row] = (result.structuredContent as { rows: Record<string, unknown>[] }).rows;
    expect(row && Object.getOwnPropertyDescriptor(row, "__proto__")?.value).toBe("x");
    expect(textOf(result)).toContain('"rows":[{"id":"1","__proto__":"x"}]');
  });

  it("answers a result of 5.5 MB whole, in one message the SDK's client takes (the text says where it is, instead of repeating it), with get_execution too", async () => {
    // 22 copies of a 250,000-character string: as text and structured, 11 MB, past the
    // 10 MiB the SDK's stdio client takes; it used to drop the connection.
    const copies = 22;
    const expression = `[${Array(copies).fill("a").join(",")}]`;
    const result = await call(
      "json_query",
      { data: { a: "a".repeat(250_000) }, expression },
      { timeout: 120_000 },
    );
    expect(result.isError, textOf(result).slice(0, 300)).toBeFalsy();
    const value = (result.structuredContent as { result: string[] }).result;
    expect(value).toHaveLength(copies);
    expect(value.every((copy) => copy.length === 250_000)).toBe(true);
    expect(textOf(result)).toMatch(/too long to repeat as text: read them from structuredContent/);
    const got = await call("get_execution", { id: executionIdOf(result) }, { timeout: 120_000 });
    expect((got.structuredContent as { result: { result: string[] } }).result.result).toHaveLength(copies);
    expect(textOf(got)).toMatch(/too long to repeat as text/);
  }, 180_000);

  it("answers discover_skills with ranked skills", async () => {
    const result = await call("discover_skills", { query: "evaluate a math expression", limit: 3 });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { results: { skill_id: string }[] };
    expect(answer.results[0]?.skill_id).toBe("math.evaluate");
    expect(answer.results.length).toBeLessThanOrEqual(3);
  });

  it("declares the discover answer as discover_skills' outputSchema, which its structuredContent fits, repeated as text", async () => {
    const { tools } = await client.listTools(); // the SDK's client then checks every answer too
    const schema = tools.find((tool) => tool.name === "discover_skills")?.outputSchema;
    expect(schema).toEqual(withoutDialect(z.toJSONSchema(DiscoverResponseSchema, { io: "output" })));
    const fits = new AjvJsonSchemaValidator().getValidator(schema ?? {});
    const discover = async (query: string) => {
      const result = await call("discover_skills", { query, limit: 5 });
      expect(result.isError).toBeFalsy();
      expect(fits(result.structuredContent).errorMessage).toBeUndefined();
      // Clients that read only text get the same answer.
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      return result.structuredContent as { results: { skill_id: string; match: Json }[] };
    };
    // Every optional part of a result's match: a skill named, and the key's own use.
    const named = await discover("math.evaluate");
    expect(named.results[0]?.match).toMatchObject({ named: true });
    const query = "work out an arithmetic expression";
    await discover(query);
    await call("execute_skill", { skill_id: "math.evaluate", params: { expression: "1 + 1" } });
    await eventually(async () => {
      const learned = await discover(query);
      return learned.results.find((result) => result.skill_id === "math.evaluate" && "usage" in result.match);
    });
  });

  it("reports a failed execution as an isError result with the code, still recorded", async () => {
    const result = await call("execute_skill", {
      skill_id: "math.evaluate",
      params: { expression: "2 +* 3" },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^execution_failed: /);
    const record = bodyOf<ExecutionRecord>(
      await server.request("GET", `/v1/executions/${executionIdOf(result)}`, { key: key.secret }),
    );
    expect(record.status).toBe("failed");
    // The code and message as data too, as for every failure; get_execution says the same.
    expect(result._meta?.["skillport/error"]).toEqual(record.error);
    const got = await call("get_execution", { id: record.id });
    expect(got.isError).toBe(true);
    expect(got._meta?.["skillport/error"]).toEqual(record.error);
  });

  it("says where invalid params are wrong and what was expected, and records no execution, as /v1's 422", async () => {
    const newest = async () =>
      bodyOf<{ data: ExecutionRecord[] }>(
        await server.request("GET", "/v1/executions?limit=1", { key: key.secret }),
      ).data[0]?.id;
    const before = await newest();
    const result = await call("math_evaluate", { expresion: "1 + 1" });
    expect(result.isError).toBe(true);
    expect(await newest()).toBe(before);
    const text = textOf(result);
    expect(text).toMatch(/^invalid_params: /);
    expect(text).toContain("expression");
    expect(text).toContain("expression: is required (a string)");
    // Then what to do, as for every failure.
    expect(text).toContain("Fix the arguments where shown");
  });

  it("refuses an unknown skill as an isError result naming skill_not_found", async () => {
    const result = await call("execute_skill", { skill_id: "no.such.skill", params: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^skill_not_found: /);
    expect(textOf(result)).toContain("Call discover_skills");
  });

  it("ends a run that exceeds its timeout as execution_timeout", async () => {
    const result = await call("execute_skill", {
      skill_id: "util.wait",
      params: { ms: 10_000 },
      timeout_ms: 100,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^execution_timeout: /);
    // What to do about it: a larger timeout_ms.
    expect(textOf(result)).toContain("timeout_ms");
    expect(result._meta?.["skillport/error"]).toMatchObject({ code: "execution_timeout" });
  });

  it("waits for the end, timeout included, when wait_ms is as long as timeout_ms", async () => {
    // The wait ends as the timeout does: the answer must still be the timeout, not a record
    // caught running just before it was recorded (remote mode used to answer that).
    const result = await call("execute_skill", {
      skill_id: "util.wait",
      params: { ms: 10_000 },
      timeout_ms: 1_000,
      wait_ms: 1_000,
    });
    expect(result.isError).toBe(true);
    expect(result._meta?.["skillport/error"]).toMatchObject({ code: "execution_timeout" });
  });

  // contract.md: execute_skill waits, by default, for the execution's whole timeout; a
  // shorter default would hand back a running record instead of the timeout.
  it("waits by default for the whole timeout: the answer is the run's end, not a running record", async () => {
    const done = await call("execute_skill", { skill_id: "util.wait", params: { ms: 2_000 } });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toEqual({ waited_ms: 2_000 });
    const timedOut = await call("execute_skill", {
      skill_id: "util.wait",
      params: { ms: 10_000 },
      timeout_ms: 2_500,
    });
    expect(timedOut.isError, textOf(timedOut)).toBe(true);
    expect(timedOut._meta?.["skillport/error"]).toMatchObject({ code: "execution_timeout" });
  });

  it("hands back a running record for a small wait_ms, to poll with get_execution", async () => {
    const started = await call("execute_skill", { skill_id: "util.wait", params: { ms: 1500 }, wait_ms: 10 });
    expect(started.isError).toBeFalsy();
    const running = started.structuredContent as unknown as ExecutionRecord;
    expect(["queued", "running"]).toContain(running.status);
    expect(textOf(started)).toContain("get_execution");
    const polled = await call("get_execution", { id: running.id, wait_ms: 30_000 });
    expect(polled.structuredContent).toMatchObject({
      id: running.id,
      status: "completed",
      result: { waited_ms: 1500 },
    });
  });

  it("relays the run's progress to a get_execution that waits, as the README's long-run pattern polls", async () => {
    const started = await call("execute_skill", { skill_id: "util.wait", params: { ms: 2500 }, wait_ms: 10 });
    const { id } = started.structuredContent as unknown as ExecutionRecord;
    const updates: { progress: number; total?: number }[] = [];
    const polled = await call(
      "get_execution",
      { id, wait_ms: 30_000 },
      { onprogress: (update) => updates.push(update) },
    );
    expect(polled.structuredContent).toMatchObject({ id, status: "completed" });
    // util.wait reports each second waited: the poll, open from the start, hears at least one.
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates[0]).toMatchObject({ total: 2500 });
    for (let i = 1; i < updates.length; i++) {
      expect(updates[i]?.progress).toBeGreaterThan(updates[i - 1]?.progress ?? 0);
    }
  });

  it("sends no progress for a call once it was answered, while its execution runs on", async () => {
    const errors: Error[] = [];
    const previous = client.onerror;
    client.onerror = (error) => errors.push(error);
    try {
      const started = await call(
        "execute_skill",
        { skill_id: "util.wait", params: { ms: 1500 }, wait_ms: 10 },
        { onprogress: () => {} },
      );
      const { id } = started.structuredContent as unknown as ExecutionRecord;
      const done = await call("get_execution", { id, wait_ms: 30_000 });
      expect(done.structuredContent).toMatchObject({ id, status: "completed" });
      // A notification sent after the answer reaches the client as an unknown progress token.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors.map((error) => error.message)).toEqual([]);
    } finally {
      client.onerror = previous;
    }
  });

  it("sends the skill's progress as notifications/progress, the last one before the answer", async () => {
    // What arrives, in wire order (`receivedMessages` says why not what `onprogress` hears).
    const { received, stop } = receivedMessages(client);
    const updates: { progress: number; total?: number }[] = [];
    try {
      const result = await call("util_wait", { ms: 1200 }, { onprogress: (update) => updates.push(update) });
      expect(result.structuredContent).toEqual({ waited_ms: 1200 });
    } finally {
      stop();
    }
    expect(updates.length).toBeGreaterThanOrEqual(1);
    const answer = received.findIndex((message) => "result" in message && message.result.structuredContent);
    const progress = received
      .slice(0, answer)
      .flatMap((message) =>
        "method" in message && message.method === "notifications/progress" ? [message] : [],
      );
    expect(answer).toBeGreaterThan(0);
    expect(progress.at(-1)?.params).toMatchObject({ progress: 1200, total: 1200 });
    expect(
      received
        .slice(answer)
        .some((message) => "method" in message && message.method === "notifications/progress"),
    ).toBe(false);
  });

  it("sends progress values that always increase (MCP), even when the skill reports one twice", async () => {
    // util.wait's last one-second tick and its "done" both report the whole wait.
    const { received, stop } = receivedMessages(client);
    try {
      const result = await call("util_wait", { ms: 1000 }, { onprogress: () => {} });
      expect(result.structuredContent).toEqual({ waited_ms: 1000 });
    } finally {
      stop();
    }
    const progress = received.flatMap((message) =>
      "method" in message && message.method === "notifications/progress"
        ? [Number(message.params?.progress)]
        : [],
    );
    expect(progress.at(-1)).toBe(1000);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1] ?? 0);
  });

  it("cancels the execution on notifications/cancelled", async () => {
    const abort = new AbortController();
    const pending = call(
      "util_wait",
      { ms: 60_000 },
      { signal: abort.signal, onprogress: () => abort.abort() },
    );
    await expect(pending).rejects.toThrow();
    const cancelled = await eventually(async () => {
      const list = bodyOf<{ data: ExecutionRecord[] }>(
        await server.request("GET", "/v1/executions?skill_id=util.wait&status=cancelled", {
          key: key.secret,
        }),
      );
      return list.data[0];
    });
    expect(cancelled.error?.code).toBe("execution_cancelled");
  });

  it("makes a call at most once with the same skillport/idempotency_key", async () => {
    const request = {
      name: "message_send",
      arguments: { channel: "ops", text: `once over ${kind}` },
      _meta: { "skillport/idempotency_key": `idem-${kind}` },
    };
    const first = (await client.callTool(request)) as CallToolResult;
    const second = (await client.callTool(request)) as CallToolResult;
    expect(executionIdOf(second)).toBe(executionIdOf(first));
    const list = bodyOf<{ data: ExecutionRecord[] }>(
      await server.request("GET", "/v1/executions?skill_id=message.send", { key: key.secret }),
    );
    expect(list.data.filter((record) => record.result?.message_id !== undefined)).toHaveLength(1);

    // The key with other arguments: refused in the call's terms, not REST's header and body.
    const reused = (await client.callTool({
      ...request,
      arguments: { channel: "ops", text: `twice over ${kind}` },
    })) as CallToolResult;
    expect(reused.isError).toBe(true);
    expect(textOf(reused)).toMatch(
      /^idempotency_key_reused: The idempotency key in _meta\["skillport\/idempotency_key"\] was used for another request: /,
    );
    expect(textOf(reused)).not.toContain("Idempotency-Key");
  });

  it("answers a retry with the same idempotency key from the first execution, whatever either waits for", async () => {
    const meta = (idempotencyKey: string) => ({ "skillport/idempotency_key": `${idempotencyKey}-${kind}` });
    const params = { ms: 400 };
    // First handed back running (wait_ms 0), then retried waiting for the end.
    const started = (await client.callTool({
      name: "execute_skill",
      arguments: { skill_id: "util.wait", params, wait_ms: 0 },
      _meta: meta("waits"),
    })) as CallToolResult;
    const retried = (await client.callTool({
      name: "execute_skill",
      arguments: { skill_id: "util.wait", params },
      _meta: meta("waits"),
    })) as CallToolResult;
    expect([started.isError, retried.isError]).toEqual([undefined, undefined]);
    expect(executionIdOf(retried)).toBe(executionIdOf(started));
    expect(retried.structuredContent).toEqual({ waited_ms: 400 });

    // A retry while the first call still waits for its run: it follows that run to its end.
    const long = { ms: 1_500 };
    const first = client.callTool({ name: "util_wait", arguments: long, _meta: meta("while-running") });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const second = client.callTool({ name: "util_wait", arguments: long, _meta: meta("while-running") });
    const both = (await Promise.all([first, second])) as CallToolResult[];
    expect(both.map((result) => [result.isError, result.structuredContent])).toEqual([
      [undefined, { waited_ms: 1_500 }],
      [undefined, { waited_ms: 1_500 }],
    ]);
    expect(executionIdOf(both[1] as CallToolResult)).toBe(executionIdOf(both[0] as CallToolResult));

    // An empty key is refused as on /v1/execute, not ignored.
    const empty = (await client.callTool({
      name: "math_evaluate",
      arguments: { expression: "1" },
      _meta: { "skillport/idempotency_key": "" },
    })) as CallToolResult;
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/^invalid_request: /);

    // So is a key that is not text (a counter, say): ignoring it would run a retry twice;
    // and one the REST header could not carry intact, in every mode alike (remote mode sends
    // its calls over REST).
    const messagesSent = async () =>
      bodyOf<{ data: ExecutionRecord[] }>(
        await server.request("GET", "/v1/executions?skill_id=message.send&limit=100", { key: key.secret }),
      ).data.length;
    const before = await messagesSent();
    for (const badKey of [12345, true, { a: 1 }, null, " k", "ключ", "a\nb"]) {
      const refused = (await client.callTool({
        name: "message_send",
        arguments: { channel: "typed-keys", text: `key ${JSON.stringify(badKey)} over ${kind}` },
        _meta: { "skillport/idempotency_key": badKey },
      })) as CallToolResult;
      expect(refused.isError, JSON.stringify(badKey)).toBe(true);
      // Named where an MCP client sends it, not as /v1's header.
      expect(textOf(refused)).toMatch(/^invalid_request: _meta\["skillport\/idempotency_key"\]: /);
    }
    expect(await messagesSent()).toBe(before);
  });

  it("shows a read-only key only discover_skills, and refuses it the rest", async () => {
    const readOnly = await server.createKey({ scope: "read-only", name: `ro-${kind}` });
    const ro = await connectMcp(kind, server, readOnly.secret);
    try {
      const { tools } = await ro.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["discover_skills"]);
      expect(tools[0]?._meta?.["anthropic/alwaysLoad"]).toBe(true);
      // Told only what it can do (audit 25, finding 7), as the full-access key is told more.
      for (const text of [ro.client.getInstructions(), tools[0]?.description]) {
        expect(text).toContain("This key may only discover skills");
        expect(text).not.toMatch(/execute_skill|get_execution/);
      }
      expect(client.getInstructions()).toContain("run one with execute_skill");
      const found = (await ro.client.callTool({
        name: "discover_skills",
        arguments: { query: "wait" },
      })) as CallToolResult;
      expect(found.isError).toBeFalsy();
      // contract.md: it calls only discover_skills: not the generic tools, nor a skill's own.
      for (const [name, args] of [
        ["execute_skill", { skill_id: "math.evaluate", params: { expression: "1" } }],
        ["get_execution", { id: "exec_whatever" }],
        ["math_evaluate", { expression: "1" }],
      ] as const) {
        const refused = (await ro.client.callTool({ name, arguments: args })) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/^insufficient_scope: /);
      }
      // Regression (audit 25, finding 4): an unknown name, even one spelling a skill's id,
      // was pointed at math_evaluate or execute_skill, which this key does not see.
      for (const name of ["math.evaluate", "no_such_tool"]) {
        const unknown = ro.client.callTool({ name, arguments: {} });
        await expect(unknown).rejects.toThrow(
          `Unknown tool "${name}"; call discover_skills. This key may only discover skills: running one needs a full-access key.`,
        );
      }
    } finally {
      await ro.close();
    }
  });

  it("counts tool calls and REST requests of one key against the same limits", async () => {
    await awayFromMinuteBoundary(20);
    const free = await server.createKey({ plan: "free", name: `free-${kind}` });
    const session = await connectMcp(kind, server, free.secret);
    try {
      await session.client.listTools();
      for (let i = 0; i < 30; i++) {
        expect(
          (await server.request("POST", "/v1/discover", { key: free.secret, json: { query: "x" } })).status,
        ).toBe(200);
      }
      // What is left of the minute (60 a minute on the free plan) after 30 REST requests, and
      // after what the remote bridge itself asked the REST API while connecting.
      const probe = await server.request("POST", "/v1/discover", { key: free.secret, json: { query: "x" } });
      const left = Number(probe.headers.get("x-ratelimit-remaining"));
      expect(left).toBeLessThanOrEqual(29);
      if (kind !== "remote") expect(left).toBe(29); // initialize and tools/list did not count
      for (let i = 0; i < left; i++) {
        const ok = (await session.client.callTool({
          name: "discover_skills",
          arguments: { query: "wait" },
        })) as CallToolResult;
        expect(ok.isError).toBeFalsy();
      }
      const refused = (await session.client.callTool({
        name: "discover_skills",
        arguments: { query: "wait" },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /^rate_limit_exceeded: Rate limit exceeded: 60 requests per 60 seconds\.\nRetry after \d+ s\.$/,
      );
      expect(refused._meta?.["skillport/error"]).toMatchObject({ code: "rate_limit_exceeded" });
      const rest = await server.request("POST", "/v1/discover", { key: free.secret, json: { query: "x" } });
      expect(rest.status).toBe(429);
    } finally {
      await session.close();
    }
  }, 90_000);

  // Remote mode sends nothing for a call it refuses itself; the REST API counts what it receives.
  it.skipIf(kind === "remote")(
    "counts a call refused for an unknown tool or invalid arguments, like a 400 on /v1",
    async () => {
      await awayFromMinuteBoundary(10);
      const free = await server.createKey({ plan: "free", name: `refused-${kind}` });
      const session = await connectMcp(kind, server, free.secret);
      const remaining = async () =>
        Number(
          (await server.request("GET", "/v1/skills?limit=1", { key: free.secret })).headers.get(
            "x-ratelimit-remaining",
          ),
        );
      try {
        const before = await remaining();
        await expect(session.client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(
          /Unknown tool/,
        );
        const invalid = (await session.client.callTool({
          name: "discover_skills",
          arguments: { limit: 51 },
        })) as CallToolResult;
        expect(invalid.isError).toBe(true);
        expect(textOf(invalid)).toMatch(/^invalid_request: /);
        // Two tool calls and one REST request since `before`.
        expect(await remaining()).toBe(before - 3);
      } finally {
        await session.close();
      }
    },
    60_000,
  );

  it("refuses every call of a key revoked while connected", async () => {
    const doomed = await server.createKey({ name: `doomed-${kind}` });
    const session = await connectMcp(kind, server, doomed.secret);
    try {
      const before = (await session.client.callTool({
        name: "discover_skills",
        arguments: { query: "x" },
      })) as CallToolResult;
      expect(before.isError).toBeFalsy();
      await server.revokeKey(doomed.id);
      if (kind !== "http") {
        const after = (await session.client.callTool({
          name: "discover_skills",
          arguments: { query: "x" },
        })) as CallToolResult;
        expect(after.isError).toBe(true);
        expect(textOf(after)).toMatch(/^invalid_api_key: /);
      } else {
        await expect(
          session.client.callTool({ name: "discover_skills", arguments: { query: "x" } }),
        ).rejects.toThrow(/invalid_api_key/);
      }
    } finally {
      await session.close().catch(() => {});
    }
  });

  /** Task-augmented tools/call (MCP tasks, the SDK's experimental support): a task is the execution its call started. */
  describe("tasks", () => {
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
      if (created?.type !== "taskCreated" || last?.type !== "result")
        throw new Error(JSON.stringify(messages));
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

    it("sends the skill's progress for the task's lifetime, after the task was created", async () => {
      // MCP 2025-11-25, progress: a task-augmented request's progressToken is used for
      // progress "throughout the task's lifetime, even after the CreateTaskResult".
      const seen: string[] = [];
      for await (const message of client.experimental.tasks.callToolStream(
        { name: "util_wait", arguments: { ms: 2500 } },
        CallToolResultSchema,
        { task: { ttl: 60_000 }, onprogress: ({ progress }) => seen.push(`progress ${progress}`) },
      )) {
        seen.push(message.type);
      }
      const created = seen.indexOf("taskCreated");
      expect(created).toBeGreaterThanOrEqual(0);
      expect(seen.at(-1)).toBe("result");
      // util.wait reports about every second: at 1 s and 2 s of its 2.5 s, then its end.
      expect(
        seen.slice(created).filter((entry) => entry.startsWith("progress ")).length,
      ).toBeGreaterThanOrEqual(2);
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

    it("refuses a task whose ttl is not a whole number of milliseconds, before anything runs", async () => {
      const before = bodyOf<{ data: ExecutionRecord[] }>(
        await server.request("GET", "/v1/executions?limit=1", { key: key.secret }),
      ).data[0]?.id;
      for (const ttl of [-1, 1.5]) {
        await expect(
          client.request(
            {
              method: "tools/call",
              params: { name: "math_evaluate", arguments: { expression: "1+1" }, task: { ttl } },
            },
            CreateTaskResultSchema,
          ),
        ).rejects.toThrow(/ttl/);
      }
      const after = bodyOf<{ data: ExecutionRecord[] }>(
        await server.request("GET", "/v1/executions?limit=1", { key: key.secret }),
      ).data[0]?.id;
      expect(after).toBe(before);
    });

    it("keeps a task made by an idempotent repeat for its whole ttl, counted from the task's creation, and never shortens the first's", async () => {
      const task = (ttl: number) =>
        client.request(
          {
            method: "tools/call",
            params: {
              name: "math_evaluate",
              arguments: { expression: "2+2" },
              task: { ttl },
              _meta: { "skillport/idempotency_key": `task-ttl-${kind}` },
            },
          },
          CreateTaskResultSchema,
        );
      const first = (await task(1_000)).task;
      // Longer than the first's ttl: it is gone, and the execution was created that long
      // before the repeat's task.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const askedAt = Date.now();
      const repeat = (await task(60_000)).task;
      expect(repeat.taskId).toBe(first.taskId);
      expect(Date.parse(repeat.createdAt)).toBeGreaterThanOrEqual(askedAt - 5);
      expect(Date.parse(repeat.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(repeat.createdAt));
      expect(await client.experimental.tasks.getTask(repeat.taskId)).toMatchObject({
        taskId: repeat.taskId,
        status: "completed",
      });
      // A third repeat asking a short ttl gets the task that lives longer; it stays readable.
      const third = (await task(100)).task;
      expect(third).toMatchObject({ taskId: repeat.taskId, ttl: 60_000, createdAt: repeat.createdAt });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await client.experimental.tasks.getTask(repeat.taskId)).toMatchObject({ status: "completed" });
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
});
