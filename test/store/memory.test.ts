import { MemoryData, openMemoryStore } from "../../src/store/memory/index.js";
import { describeStoreContract } from "./store-contract.js";

// The same contract suite as SQLite's and PostgreSQL's (store-contract.ts), on the
// in-memory store. A second store opened on the same `MemoryData` is another process on
// the same database, as a second SQLite store on one file is. With a signal channel, as
// PostgreSQL has, so that the suite holds it to the channel's contract too (without one,
// the only difference, the suite's signal test checks that neither store has a channel).
describeStoreContract("in-memory", async () => {
  const data = new MemoryData({ signals: true });
  const store = openMemoryStore({ data });
  const stores = [store];
  return {
    store,
    async open() {
      const another = openMemoryStore({ data });
      stores.push(another);
      return another;
    },
    async cleanup() {
      await Promise.all(stores.map((store) => store.close()));
    },
  };
});
