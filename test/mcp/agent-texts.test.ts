import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { CreateKeyInput } from "../../src/core/keys/key-service.js";
import { silentLogger } from "../../src/core/logger.js";
import { EmbeddedBackend } from "../../src/mcp/embedded-backend.js";
import { createMcpServer } from "../../src/mcp/mcp-server.js";
import { makeCore } from "../core/make-core.js";

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

  async function connect(key: Partial<CreateKeyInput> = {}): Promise<Client> {
    const caller = await core.keyFor(key);
    const backend = new EmbeddedBackend(core.skillport, async () => caller);
    const { server } = createMcpServer(backend, {
      maxTools: 40,
      tags: [],
      version: "test",
      logger: silentLogger,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "agent-texts", version: "1" });
    await client.connect(clientSide);
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
});
