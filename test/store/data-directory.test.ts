import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureDirectory } from "../../src/store/sqlite/data-directory.js";
import { runCli } from "../contract/harness.js";

const root = mkdtempSync(join(tmpdir(), "skillport-dirs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the data directory", () => {
  it("is created with its missing parents, and an existing one is kept", () => {
    const dir = join(root, "a", "b", "c");
    ensureDirectory(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    ensureDirectory(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
  });

  it("refuses a path under a file", () => {
    const file = join(root, "file");
    writeFileSync(file, "x");
    expect(() => ensureDirectory(join(file, "data"))).toThrow(/ENOTDIR/);
  });

  // Node's recursive mkdir never returns here (its parent exists, the child cannot be made).
  it.skipIf(!existsSync("/proc/self"))(
    "refuses a place where no directory can be made, such as /proc",
    () => {
      expect(() => ensureDirectory("/proc/skillport-data")).toThrow(/ENOENT/);
    },
  );

  it.skipIf(!existsSync("/proc/self"))(
    "makes the CLI fail with a message there, not hang",
    { timeout: 40_000 },
    async () => {
      const result = await runCli(["keys", "list"], { SKILLPORT_DATA_DIR: "/proc/skillport-data" });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("/proc/skillport-data");
    },
  );
});
