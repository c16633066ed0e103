import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("sqlite", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "skillport-store-"));
  const store = openSqliteStore({ dataDir });
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
