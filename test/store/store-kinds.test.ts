import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadStoreConfig } from "../../src/config.js";
import { silentLogger } from "../../src/core/logger.js";
import { describeStore, openStore } from "../../src/store/open-store.js";
import { storeKindOf } from "../../src/store/store-kinds.js";

describe("which store the configuration names", () => {
  it("is the embedded SQLite file without SKILLPORT_DATABASE_URL, PostgreSQL by its two schemes, and nothing else", () => {
    expect(storeKindOf(loadStoreConfig({}))).toBe("sqlite");
    for (const url of ["postgres://db/skillport", "postgresql://app@db:5432/skillport"]) {
      expect(storeKindOf(loadStoreConfig({ SKILLPORT_DATABASE_URL: url }))).toBe("postgresql");
    }
    for (const url of ["mysql://db/skillport", "db/skillport", "http://postgres://db"]) {
      expect(() => loadStoreConfig({ SKILLPORT_DATABASE_URL: url })).toThrow(
        /SKILLPORT_DATABASE_URL: must be a postgres:\/\/ URL/,
      );
    }
  });

  it("names each kind as operators read it", () => {
    expect(describeStore({ dataDir: "/srv/data", databaseUrl: undefined })).toBe(
      `the SQLite store ${join("/srv/data", "skillport.db")}`,
    );
    expect(describeStore({ dataDir: "/srv/data", databaseUrl: "postgres://app:pw@db/skillport" })).toBe(
      "the PostgreSQL store postgres://app:[redacted]@db/skillport",
    );
  });

  it("refuses PostgreSQL without Redis, before opening anything, since PostgreSQL holds no limit counters", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-kinds-"));
    try {
      // Port 9 (discard) on 127.0.0.1: nothing answers there, so a connection attempt would fail otherwise.
      const config = loadStoreConfig({
        SKILLPORT_DATA_DIR: dataDir,
        SKILLPORT_DATABASE_URL: "postgres://127.0.0.1:9/x",
      });
      await expect(openStore(config, silentLogger)).rejects.toThrow(
        // Said as every bad value is (README: "Invalid configuration" naming the variable).
        "Invalid configuration: SKILLPORT_DATABASE_URL needs SKILLPORT_REDIS_URL too: limits are counted in Redis.",
      );
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
