import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { awayFromMinuteBoundary, serverForSuite } from "../contract/harness.js";
import { type ConnectedClient, connectMcp } from "./mcp-clients.js";

type Mode = "stdio" | "remote";

// contract.md, MCP surface: every skill call counts against the key's limits, once, as a
// REST request does; README, "Use it from an assistant": with --remote the tools answer as
// in embedded mode. Regression (audit 21, F1): a --remote tool call was two REST requests
// (start, then follow), so a key got half its calls, and a call within its budget answered
// "still queued" when the follow was refused.
describe("skillport mcp --remote counts a tool call as embedded mode does", () => {
  const server = serverForSuite();

  const remainingOf = async (secret: string) =>
    Number(
      (await server().request("GET", "/v1/skills?limit=1", { key: secret })).headers.get(
        "x-ratelimit-remaining",
      ),
    );

  /** A client of `mode` for a new key with `limitMinute`, its tools listed (the catalog fetched). */
  const connected = async (mode: Mode, limitMinute: number) => {
    const key = await server().createKey({ plan: "enterprise", limitMinute, limitDay: 100_000 });
    const mcp = await connectMcp(mode, server(), key.secret);
    await mcp.client.listTools();
    return { secret: key.secret, mcp };
  };

  const call = async ({ client }: ConnectedClient, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it("uses one unit of the key's limit per tool call in both modes", async () => {
    await awayFromMinuteBoundary(20);
    const calls: [name: string, args: Record<string, unknown>][] = [
      ["execute_skill", { skill_id: "util.wait", params: { ms: 300 } }],
      ["math_evaluate", { expression: "1+1" }],
      ["execute_skill", { skill_id: "math.evaluate", params: { expression: "1+" } }],
      ["execute_skill", { skill_id: "util.wait", params: { ms: 1_500 }, wait_ms: 100 }],
    ];
    const used: Record<Mode, number[]> = { stdio: [], remote: [] };
    for (const mode of ["stdio", "remote"] as const) {
      const { secret, mcp } = await connected(mode, 150);
      try {
        for (const [name, args] of calls) {
          const before = await remainingOf(secret);
          await call(mcp, name, args);
          // Less the reading after the call, which counts too.
          used[mode].push(before - (await remainingOf(secret)) - 1);
        }
      } finally {
        await mcp.close();
      }
    }
    expect(used.stdio).toEqual([1, 1, 1, 1]);
    expect(used.remote).toEqual(used.stdio);
  });

  it("gives a key as many remote tool calls as embedded ones, each answered with its result", async () => {
    await awayFromMinuteBoundary(20);
    const answers: Record<Mode, string[]> = { stdio: [], remote: [] };
    for (const mode of ["stdio", "remote"] as const) {
      const { secret, mcp } = await connected(mode, 10);
      try {
        // Spend the key down to 3 requests left in its minute.
        for (let left = await remainingOf(secret); left > 3; left--) {
          await server().request("GET", "/v1/skills?limit=1", { key: secret });
        }
        for (let i = 0; i < 4; i++) {
          const result = await call(mcp, "execute_skill", { skill_id: "util.wait", params: { ms: 200 } });
          const error = result._meta?.["skillport/error"] as { code?: string } | undefined;
          answers[mode].push(
            result.isError ? `error ${error?.code}` : JSON.stringify(result.structuredContent),
          );
        }
      } finally {
        await mcp.close();
      }
    }
    expect(answers.stdio).toEqual([
      '{"waited_ms":200}',
      '{"waited_ms":200}',
      '{"waited_ms":200}',
      "error rate_limit_exceeded",
    ]);
    expect(answers.remote).toEqual(answers.stdio);
  });
});
