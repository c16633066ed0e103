import { type CallToolResult, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { expectError, serverForSuite } from "../contract/harness.js";
import { type ConnectedClient, connectMcp } from "./mcp-clients.js";

// README, "Use it from an assistant": tools/list does not count against the key's limits,
// and the bridge's tools answer as in embedded mode. Regressions: `--remote` answered a
// key over its rate limit's tools/list with a protocol error (rate_limit_exceeded), so an
// assistant that lists tools once at start-up saw the server with no tools at all; then,
// before it could fetch the key's scope and the catalog, it listed a read-only key's tools
// as full-access (against contract.md) and answered a skill's own tool "Unknown tool".
describe("skillport mcp --remote with a key over its rate limit", () => {
  const server = serverForSuite();

  /** A key that has spent its day (the limit outlasts the test), checked over REST. */
  const spentKey = async (scope: "full-access" | "read-only") => {
    const spent = await server().createKey({ plan: "enterprise", scope, limitMinute: 1_000, limitDay: 2 });
    for (let i = 0; i < 2; i++) await server().request("GET", "/v1/skills?limit=1", { key: spent.secret });
    expectError(
      await server().request("GET", "/v1/skills?limit=1", { key: spent.secret }),
      429,
      "rate_limit_exceeded",
    );
    return spent.secret;
  };

  /** Embedded (stdio) and remote, on one key. */
  const bothModes = async (
    secret: string,
    use: (embedded: ConnectedClient, remote: ConnectedClient) => Promise<void>,
  ) => {
    const embedded = await connectMcp("stdio", server(), secret);
    const remote = await connectMcp("remote", server(), secret);
    try {
      await use(embedded, remote);
    } finally {
      await Promise.all([embedded.close(), remote.close()]);
    }
  };

  const listed = async ({ client }: ConnectedClient) =>
    (await client.listTools()).tools.map((tool) => tool.name);

  it("lists only discover_skills before it could learn the key's scope, instead of failing", async () => {
    await bothModes(await spentKey("full-access"), async (embedded, remote) => {
      expect(await listed(embedded)).toEqual(
        expect.arrayContaining(["discover_skills", "execute_skill", "math_evaluate"]),
      );
      // What every key may call: the scope is not known yet (see RemoteBackend).
      expect(await listed(remote)).toEqual(["discover_skills"]);
      // A call is refused for the limit as a tool result, as in embedded mode.
      const refused = (await remote.client.callTool({
        name: "execute_skill",
        arguments: { skill_id: "math.evaluate", params: { expression: "1+1" } },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused._meta?.["skillport/error"]).toMatchObject({ code: "rate_limit_exceeded" });
    });
  });

  it("lists a read-only key only discover_skills, as embedded mode does", async () => {
    await bothModes(await spentKey("read-only"), async (embedded, remote) => {
      expect(await listed(embedded)).toEqual(["discover_skills"]);
      expect(await listed(remote)).toEqual(["discover_skills"]);
    });
  });

  it("answers a skill's own tool, called before the catalog could be fetched, with the limit's refusal as embedded mode does, not as an unknown tool", async () => {
    await bothModes(await spentKey("full-access"), async (embedded, remote) => {
      // A client that kept its tool list from before calls a skill's own tool.
      const call = { name: "math_evaluate", arguments: { expression: "1+1" } };
      const [inEmbedded, inRemote] = (await Promise.all([
        embedded.client.callTool(call),
        remote.client.callTool(call),
      ])) as CallToolResult[];
      for (const refused of [inEmbedded, inRemote]) {
        expect(refused?.isError).toBe(true);
        expect(refused?._meta?.["skillport/error"]).toMatchObject({
          code: "rate_limit_exceeded",
          retry_after: expect.any(Number),
        });
      }
      // A task-augmented call is refused before anything runs: a JSON-RPC error saying so.
      for (const { client } of [embedded, remote]) {
        await expect(
          client.request(
            { method: "tools/call", params: { ...call, task: { ttl: 60_000 } } },
            CreateTaskResultSchema,
          ),
        ).rejects.toMatchObject({ code: -32600, message: expect.stringMatching(/rate_limit_exceeded/) });
      }
    });
  });
});
