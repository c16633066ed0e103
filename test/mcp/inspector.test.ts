import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH, type CreatedKey, REPO_ROOT, serverForSuite } from "../contract/harness.js";
import { runNode } from "./mcp-clients.js";

const inspectorCli = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build/cli.js",
);

/** Smoke test with the MCP Inspector's CLI (`inspector --cli`) listing and calling tools over stdio. */
describe("MCP Inspector CLI against skillport mcp", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  beforeAll(async () => {
    key = await server().createRoomyKey();
  });

  // The inspector finds its own package.json through `../package.json` of the working
  // directory: run it from a folder whose parent holds one.
  const inspect = (...method: string[]) =>
    runNode(
      [
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
        server().dataDir,
        ...method,
      ],
      { cwd: join(REPO_ROOT, "test") },
    );

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
