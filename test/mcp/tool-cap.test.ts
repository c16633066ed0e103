import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyOf, startServer, stopExpectingNoErrors, type TestServer } from "../contract/harness.js";
import { type ConnectedClient, connectMcp, type McpTransportKind } from "./mcp-clients.js";

const GENERIC = ["discover_skills", "execute_skill", "get_execution"];

/**
 * contract.md, "MCP surface": one tool per skill up to SKILLPORT_MCP_MAX_TOOLS, tags
 * (SKILLPORT_MCP_TOOL_TAGS) choosing which; beyond the cap a skill is reached through the
 * generic tools. Set on the server for /mcp, on the process for stdio and --remote.
 */
describe("the MCP tool cap and tags", () => {
  const settings = { capped: { SKILLPORT_MCP_MAX_TOOLS: "2" }, tagged: { SKILLPORT_MCP_TOOL_TAGS: "math" } };
  const servers: Partial<Record<keyof typeof settings, TestServer>> = {};
  const sessions: ConnectedClient[] = [];
  /** Every skill's id and tags, as GET /v1/skills lists them. */
  let catalog: { skill_id: string; tags: string[] }[];

  beforeAll(async () => {
    const [capped, tagged] = await Promise.all([
      startServer({ env: settings.capped }),
      startServer({ env: settings.tagged }),
    ]);
    servers.capped = capped;
    servers.tagged = tagged;
    const key = await capped.createRoomyKey({ name: "catalog" });
    const listed = await capped.request("GET", "/v1/skills?limit=100", { key: key.secret });
    catalog = bodyOf<{ data: { skill_id: string; tags: string[] }[] }>(listed).data;
  });
  afterAll(async () => {
    for (const session of sessions) await session.close();
    await stopExpectingNoErrors(servers.capped);
    await stopExpectingNoErrors(servers.tagged);
  });

  /** A client of the server with `setting`, over `kind`, the setting given to its process too. */
  const connect = async (kind: McpTransportKind, setting: keyof typeof settings) => {
    const server = servers[setting];
    if (!server) throw new Error("the suite's servers have not started");
    const key = await server.createRoomyKey({ name: `${setting}-${kind}` });
    const session = await connectMcp(kind, server, key.secret, settings[setting]);
    sessions.push(session);
    return session.client;
  };

  describe.each<McpTransportKind>(["stdio", "http", "remote"])("over %s", (kind) => {
    it("lists the generic tools and no more skill tools than SKILLPORT_MCP_MAX_TOOLS; the rest run through execute_skill", async () => {
      const client = await connect(kind, "capped");
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names.slice(0, 3)).toEqual(GENERIC);
      expect(names).toHaveLength(3 + 2);
      const listed = new Set(tools.slice(3).map((tool) => tool._meta?.["skillport/skill_id"]));
      expect(listed.size).toBe(2);
      // A skill without a tool of its own (the two listed come first by id).
      expect(listed.has("math.evaluate")).toBe(false);
      const viaGeneric = (await client.callTool({
        name: "execute_skill",
        arguments: { skill_id: "math.evaluate", params: { expression: "6*7" } },
      })) as CallToolResult;
      expect(viaGeneric.isError).toBeFalsy();
      expect(viaGeneric.structuredContent).toMatchObject({ value: 42 });
    });

    it("gives their own tools to exactly the skills with a tag of SKILLPORT_MCP_TOOL_TAGS", async () => {
      const client = await connect(kind, "tagged");
      const { tools } = await client.listTools();
      expect(tools.slice(0, 3).map((tool) => tool.name)).toEqual(GENERIC);
      const listed = tools.slice(3).map((tool) => tool._meta?.["skillport/skill_id"]);
      const math = catalog.filter((skill) => skill.tags.includes("math")).map((skill) => skill.skill_id);
      expect(math.length).toBeGreaterThan(0);
      expect(math.length).toBeLessThan(catalog.length);
      expect([...listed].sort()).toEqual([...math].sort());
    });
  });
});
