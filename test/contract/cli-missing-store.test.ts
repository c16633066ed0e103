import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./harness.js";

// Regression (audit 22, operations #3): `keys` and `learning` created an empty store wherever
// they pointed, so an operator revoking a leaked key from the wrong directory was told the
// key did not exist, and one listing keys was invited to create one there.
describe("contract: keys, learning and mcp on a data directory that holds no store", () => {
  const empty = mkdtempSync(join(tmpdir(), "skillport-no-store-"));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it.each([
    [["keys", "list"]],
    [["keys", "revoke", "key_0Vc8tHJN000oN4GnTT6T3zz41"]],
    [["keys", "roll", "key_0Vc8tHJN000oN4GnTT6T3zz41"]],
    [["learning", "list", "--owner", "alice"]],
    [["learning", "forget", "--owner", "alice"]],
  ])("%j refuses it, naming the directory and the setting, and creates nothing", async (args) => {
    const result = await runCli([...args, "--data-dir", empty]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      `there is no store in ${empty}: SKILLPORT_DATA_DIR or --data-dir must name`,
    );
    expect(result.stdout).toBe("");
    expect(existsSync(join(empty, "skillport.db"))).toBe(false);
  });

  // Left open in session 24: `mcp` had its own wording for it ("so no key works there").
  it("mcp refuses it in the very words keys list uses, and creates nothing", async () => {
    const keys = await runCli(["keys", "list", "--data-dir", empty]);
    const mcp = await runCli(["mcp", "--data-dir", empty], { SKILLPORT_API_KEY: "sk_anything" });
    expect(mcp.code, mcp.stderr).toBe(1);
    expect(mcp.stdout).toBe("");
    const reason = (result: { stderr: string }) => result.stderr.replace(/^skillport [a-z ]+: /, "");
    expect(reason(mcp)).toBe(reason(keys));
    expect(reason(mcp)).toBe(
      `there is no store in ${empty}: SKILLPORT_DATA_DIR or --data-dir must name the data directory where the keys were created (the server's).\n`,
    );
    expect(existsSync(join(empty, "skillport.db"))).toBe(false);
  });

  it("keys create makes the store there (the first key)", async () => {
    const dir = join(empty, "new");
    const result = await runCli([
      "keys",
      "create",
      "--name",
      "first",
      "--scope",
      "read-only",
      "--data-dir",
      dir,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, "skillport.db"))).toBe(true);
    expect((await runCli(["keys", "list", "--data-dir", dir])).code).toBe(0);
  });
});
