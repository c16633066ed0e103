import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runningFromSources, runtimeFile } from "../../src/package-files.js";
import { CLI_PATH, REPO_ROOT, runCli } from "./harness.js";

/** The files the code opens at run time rather than imports (see src/package-files.ts). */
const RUNTIME_FILES = ["src/isolation/skill-worker.ts", "skills/index.ts", "src/http/dashboard/assets/"];

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  version: string;
  bin: { skillport: string };
};

describe("the built CLI (the package's bin, bundled in dist/cli)", () => {
  it("is the bundle, and finds the package's version from there", async () => {
    expect(CLI_PATH).toBe(join(REPO_ROOT, "dist/cli/cli.js"));
    const { code, stdout } = await runCli(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(manifest.version);
  });

  it("maps each run-time file to its source when run from the sources", () => {
    expect(runningFromSources).toBe(true);
    for (const path of RUNTIME_FILES) {
      const url = runtimeFile(path);
      expect(fileURLToPath(url)).toBe(join(REPO_ROOT, path));
      expect(existsSync(url)).toBe(true);
    }
  });

  it("ships the compiled twin of each run-time file that the bundle opens from dist", () => {
    for (const path of RUNTIME_FILES) {
      const twin = join(REPO_ROOT, "dist", path.replace(/\.ts$/, ".js"));
      expect(existsSync(twin), twin).toBe(true);
    }
  });
});
