import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { awayFromMinuteBoundary, serverForSuite } from "../contract/harness.js";
import { type ConnectedClient, connectMcp } from "./mcp-clients.js";

type Mode = "stdio" | "remote";
/** A test that may first wait up to 20 s for the next minute (awayFromMinuteBoundary). */
const BOUNDARY_TIMEOUT_MS = 60_000;
type ToolCall = { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> };

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

  /** What an agent reads of a call: the error code of an isError result, or a protocol error's text. */
  const answerOf = async ({ client }: ConnectedClient, request: ToolCall) => {
    try {
      const result = (await client.callTool(request)) as CallToolResult;
      const error = result._meta?.["skillport/error"] as { code?: string } | undefined;
      return result.isError ? `error ${error?.code}` : JSON.stringify(result.structuredContent);
    } catch (err) {
      return `protocol error ${(err as Error).message}`;
    }
  };

  /** The answers to `calls` in each mode, by a new key of `limitMinute` spent down to `left` requests. */
  const answersWithRequestsLeft = async (limitMinute: number, left: number, calls: ToolCall[]) => {
    const answers: Record<Mode, string[]> = { stdio: [], remote: [] };
    for (const mode of ["stdio", "remote"] as const) {
      const { secret, mcp } = await connected(mode, limitMinute);
      try {
        for (let remaining = await remainingOf(secret); remaining > left; remaining--) {
          await server().request("GET", "/v1/skills?limit=1", { key: secret });
        }
        for (const request of calls) answers[mode].push(await answerOf(mcp, request));
      } finally {
        await mcp.close();
      }
    }
    return answers;
  };

  /**
   * Calls refused before they run: an unknown tool, arguments each tool's schema refuses,
   * an idempotency key too long.
   */
  const refusedCalls: ToolCall[] = [
    { name: "no_such_tool", arguments: {} },
    { name: "execute_skill", arguments: { skill_id: "math.evaluate" } },
    {
      name: "execute_skill",
      arguments: { skill_id: "math.evaluate", params: { expression: "1+1" }, timeout_ms: 0 },
    },
    { name: "get_execution", arguments: { id: "" } },
    { name: "discover_skills", arguments: { query: "" } },
    {
      name: "math_evaluate",
      arguments: { expression: "1+1" },
      _meta: { "skillport/idempotency_key": "k".repeat(256) },
    },
  ];

  it(
    "uses one unit of the key's limit per tool call in both modes",
    async () => {
      await awayFromMinuteBoundary(20);
      const calls: ToolCall[] = [
        { name: "execute_skill", arguments: { skill_id: "util.wait", params: { ms: 300 } } },
        { name: "math_evaluate", arguments: { expression: "1+1" } },
        { name: "execute_skill", arguments: { skill_id: "math.evaluate", params: { expression: "1+" } } },
        {
          name: "execute_skill",
          arguments: { skill_id: "util.wait", params: { ms: 1_500 }, wait_ms: 100 },
        },
        ...refusedCalls,
      ];
      const used: Record<Mode, number[]> = { stdio: [], remote: [] };
      for (const mode of ["stdio", "remote"] as const) {
        const { secret, mcp } = await connected(mode, 150);
        try {
          for (const request of calls) {
            const before = await remainingOf(secret);
            await answerOf(mcp, request);
            // Less the reading after the call, which counts too.
            used[mode].push(before - (await remainingOf(secret)) - 1);
          }
        } finally {
          await mcp.close();
        }
      }
      expect(used.stdio).toEqual(calls.map(() => 1));
      expect(used.remote).toEqual(used.stdio);
    },
    BOUNDARY_TIMEOUT_MS,
  );

  it(
    "gives a key as many remote tool calls as embedded ones, each answered with its result",
    async () => {
      await awayFromMinuteBoundary(20);
      const wait = { name: "execute_skill", arguments: { skill_id: "util.wait", params: { ms: 200 } } };
      const answers = await answersWithRequestsLeft(10, 3, [wait, wait, wait, wait]);
      expect(answers.stdio).toEqual([
        '{"waited_ms":200}',
        '{"waited_ms":200}',
        '{"waited_ms":200}',
        "error rate_limit_exceeded",
      ]);
      expect(answers.remote).toEqual(answers.stdio);
    },
    BOUNDARY_TIMEOUT_MS,
  );

  // Regression (audit 21, F4): remote mode refused such calls itself, without a request, so
  // a key over its limit or revoked heard "invalid arguments" or "unknown tool" instead.
  it(
    "answers a refused call as embedded mode does for a key over its limit",
    async () => {
      await awayFromMinuteBoundary(20);
      const answers = await answersWithRequestsLeft(5, 0, refusedCalls);
      expect(answers.stdio).toEqual(refusedCalls.map(() => "error rate_limit_exceeded"));
      expect(answers.remote).toEqual(answers.stdio);
    },
    BOUNDARY_TIMEOUT_MS,
  );

  it("answers a refused call as embedded mode does for a revoked key", async () => {
    const answers: Record<Mode, string[]> = { stdio: [], remote: [] };
    for (const mode of ["stdio", "remote"] as const) {
      const key = await server().createRoomyKey();
      const mcp = await connectMcp(mode, server(), key.secret);
      try {
        await mcp.client.listTools();
        await server().revokeKey(key.id);
        for (const request of refusedCalls) answers[mode].push(await answerOf(mcp, request));
      } finally {
        await mcp.close();
      }
    }
    expect(answers.stdio).toEqual(refusedCalls.map(() => "error invalid_api_key"));
    expect(answers.remote).toEqual(answers.stdio);
  });
});
