import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeStore } from "../../src/store/open-store.js";
import { runCli } from "./harness.js";

// Regression (audit 23, new user #1): `skillport keys create` run from another directory (a
// linked `skillport`) made a new store in ./data without a word, and the server then refused
// the key as unknown. A misspelt SKILLPORT_DATA_DIR did the same, unwarned.
describe("contract: keys and learning say which store they used", () => {
  const root = mkdtempSync(join(tmpdir(), "skillport-store-named-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const storeOf = (dir: string) => `the SQLite store ${join(dir, "skillport.db")}`;

  it("keys create names the store, and says when it just created it (--json too, on stderr)", async () => {
    const dir = join(root, "first");
    const args = ["keys", "create", "--name", "claude", "--scope", "full-access", "--data-dir", dir];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`(plan free, owner default) in ${storeOf(dir)}.`);
    expect(first.stderr).toContain(`there was no store in ${dir}, so this created one.`);
    expect(first.stderr).toContain("SKILLPORT_DATA_DIR or --data-dir");

    const second = await runCli(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`in ${storeOf(dir)}.`);
    expect(second.stderr).toBe("");

    const other = join(root, "json");
    const json = await runCli([...args.slice(0, -1), other, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    // The JSON answer stays a key (and its secret), as scripts parse it.
    expect(Object.keys(JSON.parse(json.stdout)).sort()).toEqual(
      Object.keys(JSON.parse((await runCli([...args.slice(0, -1), other, "--json"])).stdout)).sort(),
    );
    expect(json.stderr).toContain(`there was no store in ${other}, so this created one.`);
  });

  it("list, edit, roll, revoke and learning name the store they read or changed", async () => {
    const dir = join(root, "every");
    const created = await runCli([
      "keys",
      "create",
      "--name",
      "k",
      "--scope",
      "read-only",
      "--json",
      "--data-dir",
      dir,
    ]);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const where = storeOf(dir);
    const run = async (...args: string[]) => {
      const result = await runCli([...args, "--data-dir", dir]);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    expect(await run("keys", "list")).toContain(`Keys in ${where}:`);
    expect(await run("keys", "edit", id, "--name", "renamed")).toContain(
      `Edited key ${id} "renamed" in ${where}:`,
    );
    expect(await run("keys", "roll", id, "--grace", "1h")).toContain(
      `Rolled key ${id} "renamed" in ${where}:`,
    );
    expect(await run("keys", "revoke", id)).toContain(`Revoked key ${id} "renamed" in ${where}.`);
    // Revoking it again changes nothing, and says so with when it was revoked (it said
    // "Revoked key" again, as if it had just been).
    const listed = JSON.parse(await run("keys", "list", "--json")) as { id: string; revoked_at: string }[];
    const revoked = listed.find((key) => key.id === id);
    expect(await run("keys", "revoke", id)).toBe(
      `Key ${id} "renamed" in ${where} was already revoked, at ${revoked?.revoked_at}: nothing changed.\n`,
    );
    expect(await run("learning", "list", "--owner", "default")).toContain(
      `Nothing learned for default in ${where}.`,
    );
    expect(await run("learning", "forget", "--owner", "default")).toContain(
      `Forgot 0 learned queries of default in ${where}.`,
    );
  });

  it.each([
    [["keys", "create", "--name", "typo", "--scope", "read-only"]],
    [["keys", "list"]],
    [["learning", "list", "--owner", "default"]],
  ])("%j warns of a SKILLPORT_ variable nothing reads, naming the closest", async (args) => {
    const dir = join(root, "typo");
    await runCli(["keys", "create", "--name", "seed", "--scope", "read-only", "--data-dir", dir]);
    const result = await runCli([...args, "--data-dir", dir], { SKILLPORT_DATADIR: "/srv/data" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "warning: SKILLPORT_DATADIR is not a skillport setting (ignored); did you mean SKILLPORT_DATA_DIR?",
    );
  });

  it("names a PostgreSQL store by its URL without the password", () => {
    expect(
      describeStore({ dataDir: "/unused", databaseUrl: "postgres://app:hunter2@db.internal:5432/skillport" }),
    ).toBe("the PostgreSQL store postgres://app:[redacted]@db.internal:5432/skillport");
    expect(
      describeStore({
        dataDir: "/unused",
        databaseUrl: "postgresql://db/skillport?user=app&password=hunter2",
      }),
    ).toBe("the PostgreSQL store postgresql://db/skillport?user=app&password=[redacted]");
  });
});
