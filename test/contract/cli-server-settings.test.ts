import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKey, runCli } from "./harness.js";

// Regression (audit 22, operations #8): `keys` and `learning` read the whole configuration,
// so `SKILLPORT_PORT=abc` in an environment file shared with `serve` stopped an operator
// revoking a leaked key ("Invalid configuration: SKILLPORT_PORT: must be a whole number").
describe("contract: keys and learning read only the store's settings", () => {
  const dir = mkdtempSync(join(tmpdir(), "skillport-server-settings-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const badServerSettings = {
    SKILLPORT_PORT: "abc",
    SKILLPORT_HOST: "",
    SKILLPORT_LOG_LEVEL: "loud",
    SKILLPORT_TRUST_PROXY: "everyone",
    SKILLPORT_SKILL_CONFIG: "not json",
    SKILLPORT_MCP_MAX_TOOLS: "-1",
  };

  it("keys create, list and revoke, and learning list, run whatever a server-only setting holds", async () => {
    const key = await createKey(dir, { name: "leaked" }, badServerSettings);
    const listed = await runCli(["keys", "list", "--json", "--data-dir", dir], badServerSettings);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(key.id);
    const revoked = await runCli(["keys", "revoke", key.id, "--data-dir", dir], badServerSettings);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ${key.id}`);
    const learned = await runCli(
      ["learning", "list", "--owner", "default", "--data-dir", dir],
      badServerSettings,
    );
    expect(learned.code, learned.stderr).toBe(0);
  });

  it("still refuses a bad store setting, naming it", async () => {
    const result = await runCli(["keys", "list", "--data-dir", dir], {
      SKILLPORT_DATABASE_POOL_SIZE: "many",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SKILLPORT_DATABASE_POOL_SIZE: must be a whole number");
  });
});
