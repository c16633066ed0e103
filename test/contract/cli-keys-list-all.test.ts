import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { makeKey } from "../store/contract/fixtures.js";
import { runCli } from "./harness.js";

/** More keys than `keys list` reads from the store at a time (500): it must print them all. */
const COUNT = 1_234;
const dataDir = mkdtempSync(join(tmpdir(), "skillport-keys-list-all-"));
const ids: string[] = [];

beforeAll(async () => {
  const store = openSqliteStore({ dataDir });
  try {
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < COUNT; i++) {
      // Every tenth key shares its creation time with the one before: ties across page ends too.
      const key = makeKey({
        name: `listed ${i}`,
        createdAt: isoTimestamp(start + (i - (i % 10 === 1 ? 1 : 0)) * 1000),
      });
      await store.keys.insert(key);
      ids.push(key.id);
    }
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("skillport keys list", () => {
  it("prints every key, however many, newest first, in JSON and as a table", async () => {
    const json = await runCli(["keys", "list", "--json", "--data-dir", dataDir]);
    expect(json.code, json.stderr).toBe(0);
    const listed = (JSON.parse(json.stdout) as { id: string; created_at: string }[]).map((key) => key.id);
    expect(listed).toHaveLength(COUNT);
    expect(new Set(listed)).toEqual(new Set(ids));
    const times = (JSON.parse(json.stdout) as { created_at: string }[]).map((key) => key.created_at);
    expect(times).toEqual([...times].sort().reverse());

    const table = await runCli(["keys", "list", "--data-dir", dataDir]);
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout.split("\n").filter((line) => line.startsWith("key_"));
    expect(rows).toHaveLength(COUNT);
  });
});
