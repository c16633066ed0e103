import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CreatedKey, createKey, runCli } from "./harness.js";

/**
 * `skillport keys ACTION`: each action takes its own options only. One option table for
 * every action once let `keys edit ID --scope read-only` print "Edited" and leave the key
 * full-access; and a secret pasted where an id belongs came back whole in the error.
 */
const dataDir = mkdtempSync(join(tmpdir(), "skillport-keys-options-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const keys = (...args: string[]) => runCli(["keys", ...args, "--data-dir", dataDir]);

interface Listed {
  id: string;
  name: string;
  scope: string;
  owner: string;
  environment: string;
  expires_at: string | null;
  status: string;
}

async function listed(id: string): Promise<Listed | undefined> {
  const result = await keys("list", "--json");
  return (JSON.parse(result.stdout) as Listed[]).find((k) => k.id === id);
}

describe("contract: keys actions take only their own options", () => {
  let key: CreatedKey;
  beforeAll(async () => {
    key = await createKey(dataDir, { name: "agent", scope: "full-access" });
  });

  it("refuses an option of another action with exit 2, naming the option and the action, and changes nothing", async () => {
    const cases: [string[], string, string][] = [
      [["edit", key.id, "--name", "agent-ro", "--scope", "read-only"], "edit", "--scope"],
      [["edit", key.id, "--name", "agent-ro", "--expires-at", "2099-12-01"], "edit", "--expires-at"],
      [["edit", key.id, "--name", "agent-ro", "--owner", "other"], "edit", "--owner"],
      [["edit", key.id, "--name", "agent-ro", "--env", "staging"], "edit", "--env"],
      [["edit", key.id, "--grace", "1h"], "edit", "--grace"],
      [["list", "--scope", "read-only"], "list", "--scope"],
      [["revoke", key.id, "--json"], "revoke", "--json"],
      [["roll", key.id, "--name", "x"], "roll", "--name"],
      [["create", "--name", "x", "--scope", "full-access", "--grace", "1h"], "create", "--grace"],
    ];
    for (const [args, action, option] of cases) {
      const result = await keys(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain(`skillport keys ${action} does not take ${option}`);
      expect(result.stderr).toContain(`\n\nUsage:\n  skillport keys ${action}`);
      // Every action takes --data-dir: a list of what it takes that leaves it out misleads.
      if (/ it takes /.test(result.stderr)) expect(result.stderr).toContain("--data-dir");
      expect(result.stdout).toBe("");
    }
    expect(await listed(key.id)).toMatchObject({
      name: "agent",
      scope: "full-access",
      owner: "default",
      environment: "production",
      expires_at: null,
      status: "active",
    });
    const all = JSON.parse((await keys("list", "--json")).stdout) as Listed[];
    expect(all.map((k) => k.name)).not.toContain("x");
  });

  it("refuses stray arguments with exit 2", async () => {
    for (const [args, action] of [
      [["list", "extra"], "list"],
      [["create", "--name", "my", "agent", "--scope", "full-access"], "create"],
      [["revoke", key.id, "extra"], "revoke"],
      [["edit", key.id, "extra", "--name", "y"], "edit"],
      [["roll", key.id, "extra"], "roll"],
    ] as [string[], string][]) {
      const result = await keys(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain(`keys ${action} takes`);
      expect(result.stderr).toContain('unexpected: "');
    }
    expect((await listed(key.id))?.status).toBe("active");
  });

  // Regression (audit 23, new user #11): a create without --name printed two errors for it;
  // and (audit, session 38) it was told the length rule rather than that --name is missing.
  it("says once that keys create needs a --name", async () => {
    for (const [name, said] of [
      [[], "is required (a string)"],
      [["--name", "  "], "must be 1 to 100 characters long"],
    ] as const) {
      const result = await keys("create", "--scope", "read-only", ...name);
      expect(result.code).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(`skillport keys create: --name: ${said}`);
      expect(result.stderr.split(said)).toHaveLength(2);
      expect(result.stderr).toContain("\n\nUsage:\n  skillport keys create");
    }
  });

  // Regression (audit 26 #3): swapped limits were taken without a word, and a limit over the
  // cap was told "Too big: expected number to be <=1000000000". A minute above the day is
  // still taken (the spec leaves an enterprise key's numbers to its administrator), with a note.
  it("notes a minute's limit above the day's, and refuses out-of-range limits in plain words, naming the option", async () => {
    const create = (minute: string, day: string, ...more: string[]) =>
      keys(
        "create",
        "--name",
        "big",
        "--scope",
        "read-only",
        "--limit-minute",
        minute,
        "--limit-day",
        day,
        ...more,
      );
    const huge = await create("5", "2000000000");
    expect(huge.code).toBe(2);
    expect(huge.stderr.split("\n")[0]).toBe(
      "skillport keys create: --limit-day: must be at most 1,000,000,000",
    );
    const zero = await create("0", "10");
    expect(zero.stderr.split("\n")[0]).toBe("skillport keys create: --limit-minute: must be at least 1");
    expect((JSON.parse((await keys("list", "--json")).stdout) as Listed[]).map((k) => k.name)).not.toContain(
      "big",
    );
    const swapped = await create("100000", "5000", "--json");
    expect(swapped.code).toBe(0);
    expect(JSON.parse(swapped.stdout)).toMatchObject({ limits: { per_minute: 100000, per_day: 5000 } });
    expect(swapped.stderr).toBe(
      "Note: Its minute limit (100,000) is above its day limit (5,000): the key gets at most 5,000 requests a day. If the two are swapped, edit the key.\n",
    );
    const edit = await keys("edit", key.id, "--limit-minute", "10", "--limit-day", "9");
    expect(edit.code).toBe(0);
    expect(edit.stderr).toContain("If the two are swapped, edit the key.");
    const equal = await keys("edit", key.id, "--limit-minute", "10", "--limit-day", "10", "--json");
    expect(equal.code).toBe(0);
    expect(equal.stderr).toBe("");
  });

  it("says what keys edit can change when given --scope alone, and names no internal path", async () => {
    const scope = await keys("edit", key.id, "--scope", "read-only");
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("it changes only --name, --plan, --limit-minute and --limit-day");
    expect(scope.stderr).toMatch(/scope, owner, environment and expiry cannot be edited: create a new key/);
    expect(scope.stderr).not.toContain("(root)");
    const nothing = await keys("edit", key.id);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^skillport keys edit: nothing to change/);
    expect(nothing.stderr).not.toContain("(root)");
    expect((await listed(key.id))?.scope).toBe("full-access");
  });
});

describe("contract: keys actions never print a secret given where an id belongs", () => {
  it("refuses it for revoke, edit and roll, with or without Bearer, and the key keeps working", async () => {
    const key = await createKey(dataDir, { name: "pasted" });
    const random = key.secret.slice(8);
    for (const given of [key.secret, `Bearer ${key.secret}`, key.secret.slice(0, 20)]) {
      for (const args of [
        ["revoke", given],
        ["edit", given, "--name", "x"],
        ["roll", given],
        ["create", "--name", "x", "--scope", "full-access", given],
      ]) {
        const result = await keys(...args);
        expect(result.code, args[0]).toBe(2);
        const output = result.stdout + result.stderr;
        expect(output).not.toContain(given);
        expect(output).not.toContain(random.slice(0, 12));
        if (args[0] !== "create") expect(result.stderr).toMatch(/looks like a key's secret, not its id/);
      }
    }
    expect(await listed(key.id)).toMatchObject({ name: "pasted", status: "active" });
  });
});

describe("contract: keys refusals about the key itself", () => {
  // A usage text follows a mistake of the command line. After "the key is revoked" it said
  // nothing the command line got wrong, and buried the one line that said why.
  it("print the refusal alone, on one line, and exit 2: a revoked key edited or rolled, a key rolled twice, an unknown id", async () => {
    const revoked = await createKey(dataDir, { name: "gone" });
    expect((await keys("revoke", revoked.id)).code).toBe(0);
    const rolled = await createKey(dataDir, { name: "rolled" });
    const roll = await keys("roll", rolled.id, "--json");
    expect(roll.code, roll.stderr).toBe(0);
    const replacement = (JSON.parse(roll.stdout) as { id: string }).id;
    const cases: [string[], string][] = [
      [
        ["edit", revoked.id, "--name", "x"],
        `skillport keys edit: The key ${revoked.id} is revoked; only an active key can be edited.`,
      ],
      [
        ["roll", revoked.id],
        `skillport keys roll: The key ${revoked.id} is revoked; only an active key can be rolled.`,
      ],
      [
        ["roll", rolled.id],
        `skillport keys roll: The key ${rolled.id} was rolled before: ${replacement} replaced it`,
      ],
      [["edit", "key_nosuch", "--name", "x"], "skillport keys edit: No API key has the id key_nosuch."],
      [["revoke", "key_nosuch"], "skillport keys revoke: No API key has the id key_nosuch."],
    ];
    for (const [args, refusal] of cases) {
      const result = await keys(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.startsWith(refusal), result.stderr).toBe(true);
      expect(result.stderr.trimEnd().split("\n"), result.stderr).toHaveLength(1);
    }
    // A value the command line gives or leaves out, found once the key is read, is still a
    // usage mistake: a limit for a plan with fixed limits.
    const fixed = await keys("edit", rolled.id, "--plan", "free", "--limit-minute", "5", "--limit-day", "5");
    expect(fixed.code).toBe(2);
    expect(fixed.stderr).toContain("\n\nUsage:\n  skillport keys edit KEY_ID");
  });
});
