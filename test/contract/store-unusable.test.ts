import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { startRedis } from "../support/scale-out-services.js";
import { CLI_PATH, freePort } from "./harness.js";

interface Exit {
  /** Null when the process was killed (it did not exit by itself in time). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI with no admin token, so that a server that starts prints a sign-in link. */
function runCommand(args: string[], env: Record<string, string>): Promise<Exit> {
  const { SKILLPORT_ADMIN_TOKEN: _token, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      {
        env: {
          ...inherited,
          SKILLPORT_HOST: "127.0.0.1",
          SKILLPORT_PORT: "0",
          SKILLPORT_DISCOVERY_MODE: "lexical",
          ...env,
        },
        timeout: 20_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The lines of stderr that say something. */
function stderrLines(exit: Exit): string[] {
  return exit.stderr.split("\n").filter((line) => line.trim() !== "");
}

const SETTING = "(data directory from SKILLPORT_DATA_DIR or --data-dir)";
const BACKUP = 'restore a backup (docs/deploy.md, "Backups")';

/**
 * Audit 22, operations #1 and #2: a store that cannot be opened or used (each case here is one
 * root cannot get past, as these tests run as root) was reported as the driver's bare message
 * ("file is not a database"), and a `serve` whose start then failed printed a one-time
 * dashboard sign-in link for a server already gone, and nothing on stderr saying why.
 */
describe("contract: a store that cannot be opened or used", { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "skillport-store-unusable-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A data directory holding a store made by this skillport, then changed by `change`. */
  async function madeStore(name: string, change: (file: string) => void): Promise<string> {
    const dataDir = join(root, name);
    const made = await runCommand(["keys", "create", "--name", "ops", "--scope", "read-only"], {
      SKILLPORT_DATA_DIR: dataDir,
    });
    expect(made.code, made.stderr).toBe(0);
    change(join(dataDir, "skillport.db"));
    return dataDir;
  }

  const cases: { name: string; make: () => Promise<string>; reason: string; hint: string }[] = [
    {
      name: "a data directory that is a regular file (ENOTDIR)",
      make: async () => {
        const file = join(root, "a-file");
        writeFileSync(file, "not a directory\n");
        return file;
      },
      reason: "ENOTDIR: not a directory, open '<file>'",
      hint: "a file stands where the data directory (or one of its parents) should be: point SKILLPORT_DATA_DIR or --data-dir at a directory",
    },
    {
      name: "a database file of random bytes (SQLITE_NOTADB)",
      make: async () => {
        const dataDir = join(root, "random-bytes");
        mkdirSync(dataDir);
        writeFileSync(join(dataDir, "skillport.db"), randomBytes(8192));
        return dataDir;
      },
      reason: "file is not a database [SQLITE_NOTADB]",
      hint: `it is not a skillport database, or it is damaged: ${BACKUP}`,
    },
    {
      name: "a directory where the database file should be (SQLITE_CANTOPEN)",
      make: async () => {
        const dataDir = join(root, "directory-as-file");
        mkdirSync(join(dataDir, "skillport.db"), { recursive: true });
        return dataDir;
      },
      reason: "unable to open database file [SQLITE_CANTOPEN]",
      hint: "a directory stands where the database file should be: move it away, or choose another data directory",
    },
    {
      name: "a schema newer than this skillport knows",
      make: () =>
        madeStore("newer-schema", (file) => {
          const db = new Database(file);
          db.pragma("user_version = 99");
          db.close();
        }),
      reason: `The database schema is version 99, newer than this skillport knows (${MIGRATIONS.length})`,
      hint: `a newer skillport wrote it: run that version, or restore a backup made by this one (docs/deploy.md, "Backups")`,
    },
  ];

  for (const { name, make, reason, hint } of cases) {
    it(`says in one line which file, which setting, why and what to do, for ${name}: serve, keys, learning, mcp`, async () => {
      const dataDir = await make();
      const file = join(dataDir, "skillport.db");
      const expected = `Cannot open the SQLite store ${file} ${SETTING}: ${reason.replace("<file>", file)}; ${hint}`;

      const serve = await runCommand(["serve"], { SKILLPORT_DATA_DIR: dataDir });
      expect(serve.code, serve.stderr).toBe(1);
      expect(stderrLines(serve)).toEqual([expected]);

      // The same line from every command that opens the store, `mcp` too: a data directory
      // that cannot be read is not one that holds no store (left open in session 24: `mcp`,
      // `keys` and `learning` said "there is no store" of a data directory that is a file).
      for (const args of [
        ["keys", "list", "--data-dir", dataDir],
        ["learning", "list", "--owner", "ops", "--data-dir", dataDir],
      ]) {
        const command = await runCommand(args, {});
        expect(command.code, args.join(" ")).toBe(1);
        expect(stderrLines(command), args.join(" ")).toEqual([expected]);
      }
      const mcp = await runCommand(["mcp", "--data-dir", dataDir], { SKILLPORT_API_KEY: "sk_anything" });
      expect(mcp.code, mcp.stderr).toBe(1);
      expect(stderrLines(mcp)).toEqual(stderrLines(serve));
    });
  }

  for (const logLevel of ["info", "silent"]) {
    it(`serve on a damaged executions table exits 1 saying why in one line on stderr, and prints no sign-in link (SKILLPORT_LOG_LEVEL=${logLevel})`, async () => {
      // Opening reads no executions; taking over the store's orphaned runs at start does.
      const dataDir = await madeStore(`damaged-${logLevel}`, overwriteExecutionsPages);
      const file = join(dataDir, "skillport.db");
      const serve = await runCommand(["serve"], {
        SKILLPORT_DATA_DIR: dataDir,
        SKILLPORT_LOG_LEVEL: logLevel,
      });
      expect(serve.code, serve.stderr).toBe(1);
      expect(serve.stderr).not.toContain("sign-in");
      expect(stderrLines(serve)).toEqual([
        `skillport serve: cannot start on the SQLite store ${file} ${SETTING}: database disk image is malformed [SQLITE_CORRUPT]; it is not a skillport database, or it is damaged: ${BACKUP}`,
      ]);
    });
  }

  it("serve with Redis for its limits exits 1 (not hanging on the Redis connection) when the SQLite store cannot be opened", async () => {
    const port = await freePort();
    const redis = await startRedis(port);
    try {
      const dataDir = join(root, "random-bytes-redis");
      mkdirSync(dataDir);
      writeFileSync(join(dataDir, "skillport.db"), randomBytes(8192));
      const serve = await runCommand(["serve"], {
        SKILLPORT_DATA_DIR: dataDir,
        SKILLPORT_REDIS_URL: `redis://127.0.0.1:${port}`,
      });
      expect(serve.code, serve.stderr).toBe(1);
      expect(stderrLines(serve)).toHaveLength(1);
      expect(serve.stderr).toContain("file is not a database [SQLITE_NOTADB]");
    } finally {
      redis.kill("SIGKILL");
    }
  });
});

/**
 * Damages the executions table and its indexes in place: random bytes over each of their
 * pages (each is one page while the table is empty), after moving the WAL into the file.
 */
function overwriteExecutionsPages(file: string): void {
  const db = new Database(file);
  const pageSize = Number(db.pragma("page_size", { simple: true }));
  const roots = db
    .prepare("select rootpage from sqlite_schema where tbl_name = 'executions' and rootpage > 0")
    .pluck()
    .all() as number[];
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  expect(roots.length).toBeGreaterThan(0);
  const fd = openSync(file, "r+");
  try {
    for (const page of roots) writeSync(fd, randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}
