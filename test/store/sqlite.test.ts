import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "../../src/core/ports.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { describeStoreContract } from "./store-contract.js";

// Two stores on one data dir behave like two processes: separate connections, no shared
// memory. (A real second process is in sqlite-process.test.ts.)
describeStoreContract("sqlite", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "skillport-store-"));
  const stores: Store[] = [openSqliteStore({ dataDir })];
  return {
    store: stores[0] as Store,
    async open() {
      const another = openSqliteStore({ dataDir });
      stores.push(another);
      return another;
    },
    async cleanup() {
      await Promise.all(stores.map((store) => store.close()));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
