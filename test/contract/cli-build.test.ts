import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runningFromSources, runtimeFile } from "../../src/package-files.js";
import { CLI_PATH, PACKAGE_JSON, REPO_ROOT, runCli } from "./harness.js";

const run = promisify(execFile);

/** The files the code opens at run time rather than imports (see src/package-files.ts). */
const RUNTIME_FILES = ["src/isolation/skill-worker.ts", "skills/index.ts", "src/http/dashboard/assets/"];

describe("the built CLI (the package's bin, bundled in dist/cli)", () => {
  it("is the bundle, and finds the package's version from there", async () => {
    expect(CLI_PATH).toBe(join(REPO_ROOT, "dist/cli/cli.js"));
    const { code, stdout } = await runCli(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(PACKAGE_JSON.version);
  });

  it("stops start-up on a skill setting that cannot work, naming it, before opening a store", async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), "skillport-settings-")), "data");
    try {
      const { code, stderr } = await runCli(["serve"], {
        SKILLPORT_DATA_DIR: dataDir,
        SKILLPORT_PORT: "0",
        SKILLPORT_SKILL_CONFIG: JSON.stringify({ "http.requets": { allowPrivateNetworks: true } }),
      });
      expect(code).not.toBe(0);
      expect(stderr).toContain(
        "Invalid configuration: SKILLPORT_SKILL_CONFIG: http.requets: no skill has this id (skills with settings: http.request)",
      );
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await rm(join(dataDir, ".."), { recursive: true, force: true });
    }
  });

  it("stops start-up on an MCP tool tag no skill has, before opening a store; tags match in any case", async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), "skillport-tags-")), "data");
    try {
      const { code, stderr } = await runCli(["serve"], {
        SKILLPORT_DATA_DIR: dataDir,
        SKILLPORT_PORT: "0",
        SKILLPORT_MCP_TOOL_TAGS: "MATH,nosuchtag",
      });
      expect(code).not.toBe(0);
      expect(stderr).toContain(
        'Invalid configuration: SKILLPORT_MCP_TOOL_TAGS: no skill has the tag "nosuchtag"',
      );
      expect(stderr).not.toContain('"math"');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await rm(join(dataDir, ".."), { recursive: true, force: true });
    }
  });

  it("maps each run-time file to its source when run from the sources", () => {
    expect(runningFromSources).toBe(true);
    for (const path of RUNTIME_FILES) {
      const url = runtimeFile(path);
      expect(fileURLToPath(url)).toBe(join(REPO_ROOT, path));
      expect(existsSync(url)).toBe(true);
    }
  });
});

/** `skillport mcp` with `command ...args`, on a fresh key of `dataDir`; calls text_stats, an isolated skill. */
async function callIsolatedSkillOverMcp(command: string[], dataDir: string): Promise<CallToolResult> {
  const [program, ...args] = command as [string, ...string[]];
  const created = await run(
    program,
    [...args, "keys", "create", "--name", "t", "--scope", "full-access", "--json"],
    {
      env: { ...process.env, SKILLPORT_DATA_DIR: dataDir },
    },
  );
  const { secret } = JSON.parse(created.stdout) as { secret: string };
  const client = new Client({ name: "cli-build-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: program,
      args: [...args, "mcp"],
      env: {
        ...(process.env as Record<string, string>),
        SKILLPORT_API_KEY: secret,
        SKILLPORT_DATA_DIR: dataDir,
      },
      stderr: "ignore",
    }),
  );
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("text_stats");
    // text.stats is not light: it runs in the worker pool.
    return (await client.callTool({
      name: "text_stats",
      arguments: { text: "one two three" },
    })) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe("run from the TypeScript sources (npm run dev, npm run -s cli)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "skillport-sources-"));
  });
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("runs isolated skills in worker threads, which get tsx's loader too", { timeout: 60_000 }, async () => {
    const tsx = join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs");
    const result = await callIsolatedSkillOverMcp(
      [process.execPath, tsx, join(REPO_ROOT, "src/cli.ts")],
      dataDir,
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ words: 3 });
  });

  it("ends quietly when its reader stops reading (`keys list | head`)", { timeout: 60_000 }, async () => {
    const tsx = join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs");
    const child = spawn(
      process.execPath,
      [tsx, join(REPO_ROOT, "src/cli.ts"), "keys", "list", "--data-dir", dataDir],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const [code] = (await once(child, "exit")) as [number | null];
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("the packed package (npm pack), as `npx skillport` runs it", () => {
  let workDir: string;
  let shipped: Set<string>;
  let packageDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), "skillport-pack-"));
    const { stdout } = await run(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", workDir],
      {
        cwd: REPO_ROOT,
      },
    );
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error(`npm pack printed no manifest: ${stdout}`);
    shipped = new Set(packed.files.map((file) => file.path));
    await run("tar", ["-xzf", join(workDir, packed.filename), "-C", workDir]);
    packageDir = join(workDir, "package");
    // Its dependencies, as an install would provide them.
    await symlink(join(REPO_ROOT, "node_modules"), join(packageDir, "node_modules"), "dir");
  }, 120_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("ships the bin and the compiled twin of each file the bundle opens at run time", () => {
    expect(shipped.has(PACKAGE_JSON.bin.skillport)).toBe(true);
    expect(shipped.has("dist/src/isolation/skill-worker.js")).toBe(true);
    expect(shipped.has("dist/skills/index.js")).toBe(true);
    expect([...shipped].some((path) => path.startsWith("dist/src/http/dashboard/assets/"))).toBe(true);
  });

  it("creates a key and serves MCP on stdio, running a skill in a worker thread", {
    timeout: 60_000,
  }, async () => {
    const bin = join(packageDir, PACKAGE_JSON.bin.skillport);
    const result = await callIsolatedSkillOverMcp([process.execPath, bin], join(workDir, "data"));
    // The worker comes from the tarball's dist/src.
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ words: 3 });
  });
});
