import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DRIVER_PACKAGE } from "../../src/store/sqlite/driver.js";

const FREE_STATEMENTS = fileURLToPath(new URL("./support/free-statements.ts", import.meta.url));

describe("sqlite: the driver for this Node", () => {
  it("is better-sqlite3 13 where Node has Node-API 10, else 12", () => {
    const { version } = createRequire(import.meta.url)(`${DRIVER_PACKAGE}/package.json`) as {
      version: string;
    };
    const major = Number(version.split(".")[0]);
    expect(major).toBe(Number(process.versions.napi) >= 10 ? 13 : 12);
  });

  it("lets the garbage collector free statements without aborting the process", async () => {
    // better-sqlite3 12 compiled for Node 24.19 or later aborts here (exit 134, SIGABRT).
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", FREE_STATEMENTS], {
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe("done");
  }, 90_000);
});
