import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureDirectory } from "../../src/store/sqlite/data-directory.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
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

  it("holds a new store readable by its owner only: the directory 0700, the database and its WAL 0600", async () => {
    const dir = join(root, "private", "data");
    const store = openSqliteStore({ dataDir: dir });
    try {
      await store.messages.insert("o", {
        id: "msg_1",
        channel: "c",
        text: "t",
        createdAt: new Date().toISOString(),
      });
      const mode = (path: string) => statSync(path).mode & 0o777;
      expect(mode(dir)).toBe(0o700);
      for (const file of ["skillport.db", "skillport.db-wal", "skillport.db-shm"]) {
        expect(mode(join(dir, file)), file).toBe(0o600);
      }
    } finally {
      await store.close();
    }
  });

  it("leaves an existing database file's mode as the operator set it", async () => {
    const dir = join(root, "shared");
    ensureDirectory(dir);
    const file = join(dir, "skillport.db");
    writeFileSync(file, "");
    chmodSync(file, 0o640);
    const store = openSqliteStore({ dataDir: dir });
    await store.close();
    expect(statSync(file).mode & 0o777).toBe(0o640);
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
