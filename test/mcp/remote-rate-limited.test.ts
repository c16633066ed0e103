import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { expectError, serverForSuite } from "../contract/harness.js";
import { connectMcp } from "./mcp-clients.js";

// README, "Use it from an assistant": tools/list does not count against the key's limits,
// and the bridge's tools answer as in embedded mode. Regression: `--remote` answered a
// key over its rate limit's tools/list with a protocol error (rate_limit_exceeded), so an
// assistant that lists tools once at start-up saw the server with no tools at all.
describe("skillport mcp --remote with a key over its rate limit", () => {
  const server = serverForSuite();

  it("lists the generic tools, as embedded mode lists tools, instead of failing", async () => {
    const spent = await server().createKey({ plan: "enterprise", limitMinute: 1_000, limitDay: 2 });
    for (let i = 0; i < 2; i++) await server().request("GET", "/v1/skills?limit=1", { key: spent.secret });
    expectError(
      await server().request("GET", "/v1/skills?limit=1", { key: spent.secret }),
      429,
      "rate_limit_exceeded",
    );
    const embedded = await connectMcp("stdio", server(), spent.secret);
    const remote = await connectMcp("remote", server(), spent.secret);
    try {
      const listed = (await embedded.client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(expect.arrayContaining(["discover_skills", "execute_skill", "math_evaluate"]));
      // Before the bridge could fetch the catalog: the generic tools, which reach every skill.
      const { tools } = await remote.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["discover_skills", "execute_skill", "get_execution"]);
      // A call is refused for the limit as a tool result, as in embedded mode.
      const refused = (await remote.client.callTool({
        name: "execute_skill",
        arguments: { skill_id: "math.evaluate", params: { expression: "1+1" } },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused._meta?.["skillport/error"]).toMatchObject({ code: "rate_limit_exceeded" });
    } finally {
      await Promise.all([embedded.close(), remote.close()]);
    }
  });
});
