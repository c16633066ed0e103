import { existsSync } from "node:fs";
import { join } from "node:path";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/core/keys/secret.js";
import {
  bodyOf,
  CLI_PATH,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  serverForSuite,
} from "../contract/harness.js";
import { connectMcp, runNode } from "./mcp-clients.js";

/** `skillport mcp` as a process an assistant spawns (contract.md, "MCP surface", stdio). */
describe("skillport mcp (stdio process)", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  beforeAll(async () => {
    key = await server().createRoomyKey();
  });

  /** Runs `skillport mcp`, writes `lines` to its stdin, and collects what it wrote until it exits. */
  const runMcp = (
    env: Record<string, string | undefined>,
    lines: (object | string)[] = [],
    closeAfterMs: number | "at once" = 0,
  ) =>
    runNode([CLI_PATH, "mcp", "--data-dir", server().dataDir], {
      env: { SKILLPORT_API_KEY: undefined, ...env },
      stdin: lines,
      closeStdinAfterMs: closeAfterMs,
    });

  it("exits at once without SKILLPORT_API_KEY, naming the command that creates a key", async () => {
    const { code, stdout, stderr } = await runMcp({});
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("SKILLPORT_API_KEY");
    expect(stderr).toContain("skillport keys create");
  });

  it("refuses --data-dir with --remote (exit 2) instead of ignoring the data dir", async () => {
    const { code, stdout, stderr } = await runNode(
      [CLI_PATH, "mcp", "--data-dir", server().dataDir, "--remote", server().baseUrl],
      { env: { SKILLPORT_API_KEY: key.secret }, closeStdinAfterMs: 0 },
    );
    expect(code).toBe(2);
    expect(stdout).toBe("");
    // A usage error, shown with the usage as every other one is.
    expect(stderr).toBe(
      "skillport mcp: give --data-dir or --remote, not both (--remote runs nothing here).\n\nUsage:\n  skillport mcp [--data-dir DIR | --remote URL]   MCP over stdio (key in SKILLPORT_API_KEY)\n",
    );
  });

  it("exits at once with a key that does not work", async () => {
    const revoked = await server().createKey();
    await server().revokeKey(revoked.id);
    for (const secret of ["sk_live_not_a_key", revoked.secret]) {
      const { code, stdout, stderr } = await runMcp({ SKILLPORT_API_KEY: secret });
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain("invalid_api_key");
      expect(stderr).toContain("skillport keys create");
      expect(stderr).not.toContain(secret);
    }
  });

  it("names the store it checked a key against, and creates none where there is none", async () => {
    // A key of the right shape that this store does not know (as one of another data dir).
    const unknown = generateSecret("production");
    const refused = await runMcp({ SKILLPORT_API_KEY: unknown });
    expect(refused.stderr).toContain(`the store in ${server().dataDir}`);
    expect(refused.stderr).not.toContain(unknown);
    // A malformed one is refused by its shape: no store was asked.
    expect((await runMcp({ SKILLPORT_API_KEY: "sk_live_not_a_key" })).stderr).not.toContain("the store in");
    const elsewhere = join(server().dataDir, "no-such-data-dir");
    const { code, stdout, stderr } = await runNode([CLI_PATH, "mcp", "--data-dir", elsewhere], {
      env: { SKILLPORT_API_KEY: key.secret },
      stdin: [],
      closeStdinAfterMs: 0,
    });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(`there is no store in ${elsewhere}`);
    expect(stderr).toContain("SKILLPORT_DATA_DIR");
    expect(stderr).not.toContain(key.secret);
    expect(existsSync(elsewhere)).toBe(false);
  });

  interface Message {
    jsonrpc: string;
    id?: number | string | null;
    result?: { isError?: boolean; content: { text: string }[]; [field: string]: unknown };
  }
  /** The JSON-RPC messages written to stdout, one a line. */
  const messagesOf = (stdout: string): Message[] =>
    stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Message);

  /** The opening of a session: initialize (id 1) and the initialized notification. */
  const opening = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
  ];

  it("writes nothing but protocol messages to stdout, and its logs to stderr", async () => {
    const requests = [
      ...opening,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "math_evaluate", arguments: { expression: "6*7" } },
      },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "math_evaluate", arguments: { expression: "6*" } },
      },
    ];
    const { code, stdout, stderr } = await runMcp(
      { SKILLPORT_API_KEY: key.secret, SKILLPORT_LOG_LEVEL: "debug" },
      requests,
      1500,
    );
    expect(code).toBe(0);
    const messages = messagesOf(stdout);
    for (const message of messages) expect(message.jsonrpc).toBe("2.0");
    // JSON-RPC answers concurrent calls in the order they end: the two tools/call run in
    // parallel worker threads, so 4 may be answered before 3. Each is answered once.
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4]);
    expect(byId.get(1)?.result?.protocolVersion).toBe("2025-06-18");
    expect(byId.get(3)?.result?.structuredContent).toMatchObject({ value: 42 });
    expect(byId.get(4)?.result?.isError).toBe(true);
    expect(stderr).toContain('"msg":"mcp: serving on stdio"');
    expect(stderr).not.toContain(key.secret);
  });

  it("refuses a message over the body limit with a JSON-RPC error for its id, and goes on serving", async () => {
    // 11.5 MB: past the SDK transport's own 10 MiB cap too, which used to end the process.
    const requests = [
      ...opening,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "text_stats", arguments: { text: "word ".repeat(2_300_000) } },
      },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "math_evaluate", arguments: { expression: "6*7" } },
      },
    ];
    const { code, stdout, stderr } = await runMcp({ SKILLPORT_API_KEY: key.secret }, requests, 2500);
    expect(code).toBe(0);
    const byId = new Map(
      messagesOf(stdout).map((m) => [m.id, m as Message & { error?: { code: number; message: string } }]),
    );
    expect(byId.get(2)?.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^payload_too_large: /),
    });
    expect(byId.get(3)?.result?.structuredContent).toMatchObject({ value: 42 });
    expect(stderr).toContain("refused a message over the size limit");
  });

  it("answers a malformed line (-32700 for one that is not JSON, -32600 for its id when it is no JSON-RPC request), and goes on serving", async () => {
    // Audit 22, MCP #6: the SDK's transport dropped such a line, and the client waited for its timeout.
    const requests = [
      ...opening,
      "garbage",
      '{"id":5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":null}',
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "math_evaluate", arguments: { expression: "6*7" } },
      },
    ];
    const { code, stdout, stderr } = await runMcp({ SKILLPORT_API_KEY: key.secret }, requests, 1500);
    expect(code).toBe(0);
    const messages = messagesOf(stdout) as (Message & { error?: { code: number; message: string } })[];
    expect(messages.find((m) => m.id === null)?.error).toMatchObject({
      code: -32700,
      message: expect.stringMatching(/^Parse error: the line is not JSON/),
    });
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(byId.get(5)?.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('"jsonrpc" must be "2.0"'),
    });
    expect(byId.get(6)?.error).toMatchObject({ code: -32600, message: expect.stringContaining("params") });
    expect(byId.get(7)?.result?.structuredContent).toMatchObject({ value: 42 });
    expect(stderr.match(/"msg":"mcp: refused a malformed message"/g)).toHaveLength(3);
    expect(stderr).not.toContain("garbage");
  });

  it("runs the calls of a one-shot pipe (stdin ends right after them), then exits", async () => {
    // `printf '…' | skillport mcp`: stopping at the end of stdin refused every call read
    // before it `service_unavailable: The service is shutting down` (audit 25).
    const requests = [
      ...opening,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "math_evaluate", arguments: { expression: "6*7" } },
      },
    ];
    const { code, stdout } = await runMcp({ SKILLPORT_API_KEY: key.secret }, requests, "at once");
    expect(code).toBe(0);
    const answer = messagesOf(stdout).find((message) => message.id === 2);
    expect(answer?.result?.structuredContent).toMatchObject({ value: 42 });
  }, 30_000);

  it("gives a one-shot pipe's calls the shutdown timeout: a longer run ends execution_interrupted, answered", async () => {
    const requests = [
      ...opening,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "util_wait", arguments: { ms: 20_000 } },
      },
    ];
    const { code, stdout, stderr } = await runMcp(
      { SKILLPORT_API_KEY: key.secret, SKILLPORT_LOG_LEVEL: "info", SKILLPORT_SHUTDOWN_TIMEOUT_MS: "1500" },
      requests,
      "at once",
    );
    expect(code).toBe(0);
    const answer = messagesOf(stdout).find((message) => message.id === 2);
    expect(answer?.result?.isError).toBe(true);
    expect(answer?.result?.content[0]?.text).toMatch(/^execution_interrupted: /);
    // From "stopping" (stdin ended) to "stopped": the shutdown timeout given to the call (and
    // the stop's own work, slow on a loaded machine), not the 20 s run.
    const at = (msg: string) => {
      const line = stderr.split("\n").find((l) => l.includes(`"msg":"${msg}"`));
      return Date.parse((JSON.parse(line ?? "{}") as { time?: string }).time ?? "");
    };
    const stoppedAfterMs = at("mcp: stopped") - at("mcp: stopping");
    expect(stoppedAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(stoppedAfterMs).toBeLessThan(15_000);
  }, 30_000);

  it("on stdin closing, answers a call still running with its execution ended execution_interrupted", async () => {
    const requests = [
      ...opening,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "util_wait", arguments: { ms: 60_000 } },
      },
    ];
    const { code, stdout } = await runMcp(
      { SKILLPORT_API_KEY: key.secret, SKILLPORT_SHUTDOWN_TIMEOUT_MS: "300" },
      requests,
      2500,
    );
    expect(code).toBe(0);
    const answer = messagesOf(stdout).find((message) => message.id === 2);
    expect(answer?.result?.isError).toBe(true);
    expect(answer?.result?.content[0]?.text).toMatch(/^execution_interrupted: /);
    const listed = await server().request("GET", "/v1/executions?skill_id=util.wait&limit=1", {
      key: key.secret,
    });
    const [record] = (JSON.parse(listed.text) as { data: { status: string; error: { code: string } }[] })
      .data;
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_interrupted" } });
  }, 60_000);

  it("on SIGTERM, ends a wait for another process's execution with its record as it stands, once its own have ended", async () => {
    // The server runs it: this process's shutdown does not end it.
    const started = await server().request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 30_000 }, async: true, timeout_ms: 60_000 },
    });
    const { id } = bodyOf<ExecutionRecord>(started);
    const mcp = await connectMcp("stdio", server(), key.secret, { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "20000" });
    try {
      const polled = mcp.client.callTool(
        { name: "get_execution", arguments: { id, wait_ms: 50_000 } },
        undefined,
        { timeout: 50_000 },
      ) as Promise<CallToolResult>;
      await new Promise((resolve) => setTimeout(resolve, 500));
      const signalledAt = Date.now();
      process.kill((mcp.client.transport as StdioClientTransport).pid ?? 0, "SIGTERM");
      const result = await polled;
      // Answered once this process had nothing left to run, not at its 20 s deadline.
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id, status: "running" });
    } finally {
      await mcp.close();
      await server().request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
    }
  }, 60_000);

  it("when the SDK client closes (stdin, then SIGTERM 2 s later, SIGKILL 2 s after), ends a run still going execution_interrupted, not left running", async () => {
    // Audit 22, operations #5: the stop waited SKILLPORT_SHUTDOWN_TIMEOUT_MS for the run, the
    // SIGTERM was swallowed and the SIGKILL left the record `running` in the store.
    const mcp = await connectMcp("stdio", server(), key.secret, { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "20000" });
    const started = (await mcp.client.callTool({
      name: "execute_skill",
      arguments: { skill_id: "util.wait", params: { ms: 30_000 }, timeout_ms: 60_000, wait_ms: 0 },
    })) as CallToolResult;
    const { id } = started.structuredContent as unknown as ExecutionRecord;
    await mcp.close();
    const record = bodyOf<ExecutionRecord>(
      await server().request("GET", `/v1/executions/${id}`, { key: key.secret }),
    );
    expect(record).toMatchObject({ status: "failed", error: { code: "execution_interrupted" } });
    // It ended its stop itself: it was not killed.
    expect(mcp.stderr()).toContain('"msg":"mcp: stopped"');
  }, 60_000);

  it("on SIGHUP stops as on SIGTERM: a call in flight is answered with its run's result before the process stops", async () => {
    // SIGHUP (the terminal an assistant's process was started from closed) killed it at
    // once: the call went unanswered and its run stayed `running` in the store.
    const mcp = await connectMcp("stdio", server(), key.secret);
    try {
      const call = mcp.client.callTool({
        name: "util_wait",
        arguments: { ms: 1_000 },
      }) as Promise<CallToolResult>;
      await eventually(async () => {
        const listed = await server().request("GET", "/v1/executions?skill_id=util.wait&status=running", {
          key: key.secret,
        });
        return bodyOf<{ data: ExecutionRecord[] }>(listed).data[0];
      });
      process.kill((mcp.client.transport as StdioClientTransport).pid ?? 0, "SIGHUP");
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ waited_ms: 1_000 });
      await eventually(async () => (mcp.stderr().includes('"msg":"mcp: stopped"') ? true : undefined));
      expect(mcp.stderr()).toContain('"reason":"SIGHUP"');
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it("on a second SIGTERM during the stop, interrupts the runs at once, answers their calls, says so and exits", async () => {
    const mcp = await connectMcp("stdio", server(), key.secret, { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "30000" });
    const pid = (mcp.client.transport as StdioClientTransport).pid ?? 0;
    try {
      const call = mcp.client.callTool({ name: "util_wait", arguments: { ms: 60_000 } }, undefined, {
        timeout: 50_000,
      }) as Promise<CallToolResult>;
      await eventually(async () => {
        const listed = await server().request("GET", "/v1/executions?skill_id=util.wait&status=running", {
          key: key.secret,
        });
        return bodyOf<{ data: ExecutionRecord[] }>(listed).data[0];
      });
      process.kill(pid, "SIGTERM");
      await eventually(async () => (mcp.stderr().includes('"msg":"mcp: stopping"') ? true : undefined));
      const signalledAt = Date.now();
      process.kill(pid, "SIGTERM");
      const result = await call;
      // Answered at the second signal, not at the 30 s deadline.
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      expect(result.isError).toBe(true);
      expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/^execution_interrupted: /) });
      await eventually(async () => (mcp.stderr().includes('"msg":"mcp: stopped"') ? true : undefined));
      expect(mcp.stderr()).toContain(
        '"executions":1,"msg":"mcp: signal during the stop: interrupting executions now"',
      );
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
