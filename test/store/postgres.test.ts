import { describe } from "vitest";
import { scaleOutServices, skipWithoutServices } from "../support/scale-out-services.js";
import { describeStoreContract } from "./store-contract.js";
import { makePostgresStore } from "./support/postgres-store.js";

// The same contract suite as SQLite's (store-contract.ts), on PostgreSQL + Redis.
const services = scaleOutServices();
if (services) {
  describeStoreContract("postgresql + redis", () => makePostgresStore(services));
} else {
  describe("postgresql + redis: store contract", () => skipWithoutServices("the store contract"));
}
