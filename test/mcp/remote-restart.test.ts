import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../contract/harness.js";
import { connectMcp } from "./mcp-clients.js";

// README, "Use it from an assistant": `skillport mcp --remote` bridges to a running server,
// which may restart under it. Tried end to end in session 32: the real server, the real
// bridge and the SDK's stdio client, the server stopped and started again mid-session.
describe("skillport mcp --remote across a restart of its server", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("keeps its tools while the server is down, answers calls meanwhile with service_unavailable, and follows a run started before it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-test-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const servers: TestServer[] = [];
    cleanups.push(() => Promise.all(servers.map((server) => server.stop())));
    const first = await startServer({ dataDir });
    servers.push(first);
    const port = Number(new URL(first.baseUrl).port);
    const key = await first.createRoomyKey({ owner: "remote-restart" });
    const remote = await connectMcp("remote", first, key.secret);
    cleanups.push(() => remote.close());
    const call = async (name: string, args: Record<string, unknown>) =>
      (await remote.client.callTool({ name, arguments: args })) as CallToolResult;
    const listed = async () => (await remote.client.listTools()).tools.map((tool) => tool.name);

    const tools = await listed();
    expect(tools).toEqual(expect.arrayContaining(["execute_skill", "get_execution", "math_evaluate"]));
    // A run still going when the server stops: a graceful stop lets it finish.
    const started = await call("execute_skill", {
      skill_id: "util.wait",
      params: { ms: 1_500 },
      wait_ms: 100,
    });
    const id = started._meta?.["skillport/execution_id"];
    expect(started.structuredContent).toMatchObject({ id, status: "running" });

    expect(await first.stop()).toBe(0);
    expect(await listed()).toEqual(tools);
    for (const refused of [
      await call("math_evaluate", { expression: "1+1" }),
      await call("get_execution", { id }),
    ]) {
      expect(refused.isError).toBe(true);
      expect(refused._meta?.["skillport/error"]).toMatchObject({
        code: "service_unavailable",
        message: expect.stringContaining(`The connection to ${first.baseUrl} failed`),
      });
    }

    const second = await startServer({ dataDir, port });
    servers.push(second);
    expect(await listed()).toEqual(tools);
    expect((await call("math_evaluate", { expression: "1+1" })).structuredContent).toMatchObject({
      value: 2,
    });
    const ended = await call("get_execution", { id, wait_ms: 10_000 });
    expect(ended.structuredContent).toMatchObject({ id, status: "completed", result: { waited_ms: 1_500 } });
  }, 60_000);
});
