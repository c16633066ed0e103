import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { CreateKeyInput } from "../../src/core/keys/key-service.js";
import { EmbeddedBackend } from "../../src/mcp/embedded-backend.js";
import { makeCore } from "../core/make-core.js";
import { inMemoryMcpClient } from "./in-memory-client.js";
import { textOf } from "./tool-result-text.js";

/**
 * What an agent reads of skillport over MCP (audit 25): the tools' texts and schemas, and
 * the texts of the errors it has to recover from, with the built-in skills, in process.
 */
describe("what an agent reads over MCP", () => {
  let core: Awaited<ReturnType<typeof makeCore>>;
  const clients: Client[] = [];

  beforeAll(async () => {
    core = await makeCore(builtinSkills);
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await core?.cleanup();
  });

  async function connect(key: Partial<CreateKeyInput> = {}, { maxTools = 40 } = {}): Promise<Client> {
    const caller = await core.keyFor(key);
    const backend = new EmbeddedBackend(core.skillport, async () => caller);
    const client = await inMemoryMcpClient(backend, { maxTools, scope: caller.scope });
    clients.push(client);
    return client;
  }

  /** Every text of a tool an agent reads: its description and those of its params, at any depth. */
  function textsOf(tool: Tool): string[] {
    const texts = tool.description ? [tool.description] : [];
    const walk = (schema: unknown): void => {
      if (schema === null || typeof schema !== "object") return;
      const { description } = schema as { description?: unknown };
      if (typeof description === "string") texts.push(description);
      for (const child of Object.values(schema)) walk(child);
    };
    walk(tool.inputSchema);
    return texts;
  }

  // Regression (audit 25, finding 2): the default wait is the whole timeout, and the official
  // SDK client gives up at 60 s, cancelling the call and its run; only the README said so.
  it("tells the agent choosing execute_skill's wait_ms to keep it under its client's request timeout and poll", async () => {
    const { tools } = await (await connect()).listTools();
    const execute = tools.find((tool) => tool.name === "execute_skill");
    const waitMs = execute?.inputSchema.properties?.wait_ms as { description?: string };
    for (const text of [execute?.description, waitMs.description]) {
      expect(text).toContain(
        `request timeout (${DEFAULT_REQUEST_TIMEOUT_MSEC / 1000} s in the official MCP SDKs`,
      );
      expect(text).toContain("poll with get_execution");
    }
  });

  // Regression (audit 25, finding 2): util_wait and http_request told the agent to set "the
  // execution's timeout_ms", which a skill's own tool does not take (it answered a 30 s failure).
  it("words every skill text about timeout_ms so that it holds for the skill's own tool too", async () => {
    const { tools } = await (await connect()).listTools();
    const skillTools = tools.filter((tool) => tool._meta?.["skillport/skill_id"] !== undefined);
    expect(skillTools.length).toBe(builtinSkills.length);
    const advice = skillTools.flatMap((tool) =>
      textsOf(tool)
        .filter((text) => text.includes("timeout_ms"))
        .map((text) => ({ tool: tool.name, text })),
    );
    expect(advice.map(({ tool }) => tool)).toEqual(expect.arrayContaining(["util_wait", "http_request"]));
    for (const { tool, text } of advice) {
      expect(text, tool).toContain("execute_skill");
      expect(text, tool).not.toMatch(/\bset the execution's timeout_ms\b/);
    }
  });

  /** The places in `schema` (any depth) that have one of `keys`, as paths. */
  function placesWith(schema: unknown, keys: readonly string[], path = ""): string[] {
    if (schema === null || typeof schema !== "object") return [];
    return Object.entries(schema).flatMap(([key, child]) => [
      ...(keys.includes(key) ? [`${path}.${key}`] : []),
      ...placesWith(child, keys, `${path}.${key}`),
    ]);
  }

  // Regression (audit 25, finding 4): every tool's schemas declared `$schema`, which makes
  // Gemini's FunctionDeclaration.parameters refuse the whole request ("Unknown name
  // "$schema""), and skills' schemas had an allOf of two patterns and exclusive bounds.
  it("declares every tool's schemas without $schema, allOf or exclusive bounds, for either scope", async () => {
    const full = (await (await connect()).listTools()).tools;
    const readOnly = (await (await connect({ scope: "read-only" })).listTools()).tools;
    expect(full.length).toBe(3 + builtinSkills.length);
    const places = [...full, ...readOnly].flatMap((tool) => [
      ...placesWith(
        tool.inputSchema,
        ["$schema", "allOf", "exclusiveMinimum", "exclusiveMaximum"],
        tool.name,
      ),
      ...placesWith(tool.outputSchema ?? {}, ["$schema"], `${tool.name}(output)`),
    ]);
    expect(places).toEqual([]);
    // Still as strict: a member a skill does not name is refused (README, "Write a skill").
    const memorySet = full.find((tool) => tool.name === "memory_set");
    expect(memorySet?.inputSchema.additionalProperties).toBe(false);
    expect(memorySet?.inputSchema.properties?.key).toMatchObject({
      type: "string",
      pattern: expect.any(String),
    });
  });

  const call = async (client: Client, name: string, args: unknown) =>
    (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;

  // Regression (audit 25, finding 6): "expected record" is zod's word, and params sent as a
  // string of JSON (the commonest slip with a nested argument) were not told so.
  it("tells an agent that sent params as a string of JSON to send the object, and calls a record an object", async () => {
    const client = await connect();
    const asText = await call(client, "execute_skill", {
      skill_id: "math.evaluate",
      params: JSON.stringify({ expression: "1+1" }),
    });
    expect(asText.isError).toBe(true);
    expect(textOf(asText)).toMatch(
      /^invalid_request: params: must be a JSON object, not a string holding JSON\n/,
    );
    const missing = textOf(await call(client, "execute_skill", { skill_id: "math.evaluate" }));
    expect(missing).toMatch(/^invalid_request: params: is required \(an object\)\n/);
    const headers = textOf(await call(client, "http_request", { url: "https://example.org/", headers: "x" }));
    expect(headers).toMatch(/^invalid_params: headers: must be an object, not a string\n/);
  });

  // Regression (audit 25, finding 6): models (and clients converting schemas to strict mode)
  // send null for an optional argument; the refusal did not say that leaving it out works.
  it("refuses a null for an optional argument, saying to omit it for the default, and only for optional ones", async () => {
    const client = await connect();
    const discover = textOf(
      await call(client, "discover_skills", { query: "hash", limit: null, tags: null }),
    );
    expect(discover).toContain(
      "invalid_request: limit: must be a number, not null; omit it to use the default",
    );
    expect(discover).toContain("- tags: must be an array, not null; omit it to use the default");
    const skill = textOf(
      await call(client, "time_convert", { time: "now", to_timezone: "Asia/Tokyo", from_timezone: null }),
    );
    expect(skill).toMatch(
      /^invalid_params: from_timezone: must be a string, not null; omit it to use the default\n/,
    );
    const required = textOf(await call(client, "math_evaluate", { expression: null }));
    expect(required).toMatch(/^invalid_params: expression: must be a string, not null\n/);
  });

  // Regression (audit 25, finding 6): an agent sees skills by id (math.evaluate) and by tool
  // name (math_evaluate), and mixing them up was answered without the right spelling.
  it("names the right spelling for a tool name given as skill_id, and for a skill id called as a tool", async () => {
    const client = await connect();
    const byToolName = await call(client, "execute_skill", {
      skill_id: "math_evaluate",
      params: { expression: "2+2" },
    });
    expect(textOf(byToolName)).toMatch(
      /^skill_not_found: No skill has the id "math_evaluate"; did you mean "math.evaluate"\?\n/,
    );
    await expect(call(client, "math.evaluate", { expression: "2+2" })).rejects.toThrow(
      'Unknown tool "math.evaluate"; did you mean math_evaluate, the tool of skill "math.evaluate"?',
    );
    // A tool name with a client's prefix (Claude Code's mcp__<server>__<tool>).
    await expect(call(client, "mcp__skillport__math_evaluate", { expression: "2+2" })).rejects.toThrow(
      'Unknown tool "mcp__skillport__math_evaluate"; did you mean math_evaluate, the tool of skill "math.evaluate"?',
    );
    // A skill beyond the cap has no tool of its own: execute_skill runs it.
    const capped = await connect({}, { maxTools: 0 });
    await expect(call(capped, "math.evaluate", { expression: "2+2" })).rejects.toThrow(
      'skill "math.evaluate" has no tool of its own here: call execute_skill with skill_id "math.evaluate"',
    );
    await expect(call(client, "no.such.tool", {})).rejects.toThrow(
      'Unknown tool "no.such.tool"; call tools/list, or discover_skills and execute_skill.',
    );
  });

  // Regression (audit 25, finding 6): through execute_skill, "value" is inside `params`, and
  // what it takes is the skill's params schema, not the tool's inputSchema (any object there).
  it("shows a wrong param under params. for execute_skill, pointing at the skill's params schema", async () => {
    const client = await connect();
    const params = { value: "5", from: "km", to: "mi" };
    const generic = await call(client, "execute_skill", { skill_id: "units.convert", params });
    expect(textOf(generic)).toMatch(/^invalid_params: params\.value: must be a number, not a string\n/);
    expect(textOf(generic)).toContain(
      "the skill's params schema says what each takes: discover_skills shows it",
    );
    expect(textOf(generic)).not.toContain("inputSchema");
    expect(generic._meta?.["skillport/error"]).toMatchObject({
      code: "invalid_params",
      message: "params.value: must be a number, not a string",
      details: [{ path: "params.value", message: "must be a number, not a string" }],
    });
    // The skill's own tool takes the params as its arguments: there the place is `value`.
    const own = textOf(await call(client, "units_convert", params));
    expect(own).toMatch(/^invalid_params: value: must be a number, not a string\n/);
    expect(own).toContain("the tool's inputSchema says what each takes");
  });

  // Regression (audit 25, noted): a misnamed argument was told only that it is "not a member
  // this object takes", or (get_execution drops unknown members) only that `id` is missing.
  it("names the argument a misnamed one meant, on skill tools, execute_skill and get_execution", async () => {
    const client = await connect();
    const time = { time: "2024-05-01T12:00:00Z" };
    const to = textOf(await call(client, "time_convert", { ...time, to: "Asia/Tokyo" }));
    expect(to).toMatch(/^invalid_params: to: is not allowed here; did you mean "to_timezone"\?\n/);
    const typo = await call(client, "execute_skill", {
      skill_id: "math.evaluate",
      params: { expresion: "1+1" },
    });
    expect(textOf(typo)).toContain('- params.expresion: is not allowed here; did you mean "expression"?');
    const polled = textOf(await call(client, "get_execution", { execution_id: "exec_123" }));
    expect(polled).toMatch(
      /^invalid_request: id: is required \(a string\); "execution_id" is not a member: did you mean "id"\?\n/,
    );
    // Nothing close: no guess, the few names it takes instead.
    const unrelated = textOf(await call(client, "time_convert", { ...time, banana: 1 }));
    expect(unrelated).toMatch(
      /^invalid_params: banana: is not allowed here; this object takes "time", "from_timezone", "to_timezone", "format"\n/,
    );
    expect(unrelated).not.toContain("did you mean");
    const lost = textOf(await call(client, "get_execution", { banana: "exec_123" }));
    expect(lost).toMatch(/^invalid_request: id: is required \(a string\)\n/);
  });

  // Regression (audit 27, finding 2): `time` (a string or a number) was "time: Invalid input".
  it("says what a string-or-number argument takes when it is missing or misnamed", async () => {
    const client = await connect();
    const missing = textOf(await call(client, "time_convert", { to_timezone: "Asia/Tokyo" }));
    expect(missing).toMatch(/^invalid_params: time: is required \(a string or a number\)\n/);
    const misnamed = textOf(await call(client, "time_convert", { tme: "now" }));
    expect(misnamed).toMatch(
      /^invalid_params: time: is required \(a string or a number\); "tme" is not a member: did you mean "time"\?\n/,
    );
  });

  // Regression: a bad idempotency key sent in _meta was refused as "Idempotency-Key: …", the
  // header of /v1, which an MCP client never sent.
  it("names _meta's idempotency key, not /v1's header, when refusing one", async () => {
    const client = await connect();
    for (const name of ["execute_skill", "math_evaluate"]) {
      const args =
        name === "math_evaluate"
          ? { expression: "1" }
          : { skill_id: "math.evaluate", params: { expression: "1" } };
      const refused = (await client.callTool({
        name,
        arguments: args,
        _meta: { "skillport/idempotency_key": 5 },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /^invalid_request: _meta\["skillport\/idempotency_key"\]: 1 to 255 printable ASCII/,
      );
      expect(textOf(refused)).not.toContain("Idempotency-Key");
    }
  });

  // Regression (audit 25, finding 7): "... Retry in 42 s." then "Retry after 42 s.".
  it("says when to retry after a rate-limit refusal once, and which limit in the message", async () => {
    const client = await connect({ plan: "enterprise", limits: { perMinute: 1, perDay: 100 } });
    expect((await call(client, "discover_skills", { query: "hash" })).isError).toBeFalsy();
    const refused = await call(client, "discover_skills", { query: "hash" });
    const text = textOf(refused);
    expect(text).toMatch(
      /^rate_limit_exceeded: Rate limit exceeded: 1 requests per 60 seconds\.\nRetry after \d+ s\.$/,
    );
    expect(text.match(/retry/gi)).toHaveLength(1);
    // The contract's error, as /v1 sends it: the wait is its retry_after.
    expect(refused._meta?.["skillport/error"]).toEqual({
      code: "rate_limit_exceeded",
      message: "Rate limit exceeded: 1 requests per 60 seconds.",
      retry_after: expect.any(Number),
    });
  });

  // Regression (audit 25, finding 7): a read-only key was told to run skills with
  // execute_skill and poll with get_execution, tools it does not see and may not call.
  it("tells a read-only key only what it can do, in the instructions and discover_skills' description", async () => {
    const readOnly = await connect({ scope: "read-only" });
    const { tools } = await readOnly.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["discover_skills"]);
    expect(readOnly.getInstructions()).toContain("Call discover_skills");
    for (const text of [readOnly.getInstructions(), tools[0]?.description]) {
      expect(text).toContain("This key may only discover skills: running one needs a full-access key.");
      expect(text).not.toMatch(/execute_skill|get_execution|its own tool/);
    }
    const full = await connect();
    const discover = (await full.listTools()).tools.find((tool) => tool.name === "discover_skills");
    for (const text of [full.getInstructions(), discover?.description]) {
      expect(text).toContain("execute_skill");
      expect(text).not.toContain("only discover");
    }
  });
});
