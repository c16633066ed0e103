import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { KeyJson } from "../../src/core/keys/key-json.js";
import { runCli } from "./harness.js";

/** `skillport keys … --json` prints keys in the shape the core's `KeyJson` defines, and nothing else. */
const dataDir = mkdtempSync(join(tmpdir(), "skillport-keys-json-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const keys = (...args: string[]) => runCli(["keys", ...args, "--data-dir", dataDir]);

describe("contract: keys --json prints KeyJson", () => {
  it("create, edit, roll and list answer keys that validate against KeyJson", async () => {
    const created = await keys("create", "--name", "agent", "--scope", "full-access", "--json");
    expect(created.code).toBe(0);
    const { secret, ...key } = z
      .object({ secret: z.string() })
      .catchall(z.unknown())
      .parse(JSON.parse(created.stdout));
    expect(secret).toMatch(/^sk_/);
    const parsed = KeyJson.parse(key);
    // contract.md, "API keys": what a key has, whatever KeyJson says; owner `default` when none is given.
    expect(Object.keys(key)).toEqual(
      expect.arrayContaining([
        "id",
        "name",
        "scope",
        "plan",
        "environment",
        "owner",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
      ]),
    );
    expect(key).toMatchObject({ name: "agent", scope: "full-access", plan: "free", owner: "default" });

    const edited = await keys("edit", parsed.id, "--plan", "pro", "--json");
    expect(KeyJson.parse(JSON.parse(edited.stdout)).plan).toBe("pro");

    const rolled = await keys("roll", parsed.id, "--grace", "1h", "--json");
    const roll = KeyJson.extend({ secret: z.string(), previous: KeyJson }).parse(JSON.parse(rolled.stdout));
    expect(roll.previous.id).toBe(parsed.id);

    const listed = z.array(KeyJson).parse(JSON.parse((await keys("list", "--json")).stdout));
    expect(listed.map((k) => k.id).sort()).toEqual([parsed.id, roll.id].sort());
  });
});
