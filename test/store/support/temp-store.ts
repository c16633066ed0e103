import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import {
  openSqliteStore,
  type SqliteStore,
  type SqliteStoreOptions,
} from "../../../src/store/sqlite/index.js";

/**
 * Temporary data dirs and stores for one test file: everything opened through it is
 * closed and deleted after each test.
 */
export function useTempStores(): {
  dataDir(): Promise<string>;
  open(options: SqliteStoreOptions): SqliteStore;
} {
  const dirs: string[] = [];
  const stores: SqliteStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return {
    async dataDir() {
      const dir = await mkdtemp(join(tmpdir(), "skillport-store-"));
      dirs.push(dir);
      return dir;
    },
    open(options) {
      const store = openSqliteStore(options);
      stores.push(store);
      return store;
    },
  };
}
