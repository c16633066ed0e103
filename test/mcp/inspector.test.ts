import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH, type CreatedKey, REPO_ROOT, startServer, type TestServer } from "../contract/harness.js";

const inspectorCli = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build/cli.js",
);

/** Smoke test with the MCP Inspector's CLI (`inspector --cli`) listing and calling tools over stdio. */
describe("MCP Inspector CLI against skillport mcp", () => {
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey();
  });
  afterAll(async () => {
    await server?.stop();
  });

  function inspect(...method: string[]) {
    const args = [
      inspectorCli,
      "--cli",
      "-e",
      `SKILLPORT_API_KEY=${key.secret}`,
      "-e",
      "SKILLPORT_LOG_LEVEL=warn",
      process.execPath,
      CLI_PATH,
      "mcp",
      "--data-dir",
      server.dataDir,
      ...method,
    ];
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      // The inspector finds its own package.json through `../package.json` of the working
      // directory: run it from a folder whose parent holds one.
      const child = spawn(process.execPath, args, { cwd: join(REPO_ROOT, "test") });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
  }

  it("lists the tools", async () => {
    const { code, stdout, stderr } = await inspect("--method", "tools/list");
    expect(code, stderr).toBe(0);
    const names = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["discover_skills", "execute_skill", "get_execution", "math_evaluate"]),
    );
  });

  it("calls a skill tool", async () => {
    const { code, stdout, stderr } = await inspect(
      "--method",
      "tools/call",
      "--tool-name",
      "math_evaluate",
      "--tool-arg",
      "expression=6*7",
    );
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ structuredContent: { value: 42 } });
  });
});
