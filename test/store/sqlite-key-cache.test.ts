import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { DEFAULT_DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { KEY_CACHE_TTL_MS } from "../../src/store/sqlite/key-store.js";
import { makeKey } from "./contract/fixtures.js";
import { useTempStores } from "./support/temp-store.js";

describe("sqlite: key cache", () => {
  const temp = useTempStores();

  it("re-reads a cached key after its TTL even when no change was announced", async () => {
    const clock = new ManualClock();
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir, clock });
    const key = makeKey();
    await store.keys.insert(key);
    expect((await store.keys.findByHash(key.hash))?.revokedAt).toBeNull();

    // A change that bypasses the signal, as from a process that died right after committing.
    const raw = new Database(join(dataDir, DEFAULT_DATABASE_FILE));
    raw.prepare("update api_keys set revoked_at = ? where id = ?").run("2026-01-01T00:00:00.000Z", key.id);
    raw.close();

    expect((await store.keys.findByHash(key.hash))?.revokedAt).toBeNull(); // still cached
    clock.advance(KEY_CACHE_TTL_MS);
    expect((await store.keys.findByHash(key.hash))?.revokedAt).toBe("2026-01-01T00:00:00.000Z");
  });

  it("does not cache unknown hashes, so a key created later is found at once", async () => {
    const dataDir = await temp.dataDir();
    const reader = temp.open({ dataDir, clock: new ManualClock() });
    const writer = temp.open({ dataDir });
    const key = makeKey();
    expect(await reader.keys.findByHash(key.hash)).toBeUndefined();
    await writer.keys.insert(key);
    expect((await reader.keys.findByHash(key.hash))?.id).toBe(key.id);
  });
});
