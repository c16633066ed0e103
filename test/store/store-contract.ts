import { describe, expect, it } from "vitest";
import { describeEmbeddingContract } from "./contract/embeddings.js";
import { describeExecutionContract } from "./contract/executions.js";
import { type MakeStore, makeExecution, makeKey, useStore } from "./contract/fixtures.js";
import { describeIdempotencyContract } from "./contract/idempotency.js";
import { describeKeyContract } from "./contract/keys.js";
import { describeLearnedQueryContract } from "./contract/learned-queries.js";
import { describeLimiterContract } from "./contract/limiter.js";
import { describeNulTextContract } from "./contract/nul-text.js";
import { describeOwnerDataContract } from "./contract/owner-data.js";
import { describeRunnerContract } from "./contract/runners.js";
import { describeSharedDataContract } from "./contract/shared-data.js";
import { describeUsageContract } from "./contract/usage.js";

export type { MakeStore } from "./contract/fixtures.js";

/**
 * The behaviour every `Store` adapter must have (src/core/ports.ts), written against the
 * ports only so that each adapter (SQLite, PostgreSQL + Redis, in-memory) runs it unchanged.
 * `makeStore` is called before each test and must return an empty store.
 */
export function describeStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name}: store contract`, () => {
    const handle = useStore(makeStore);

    describeKeyContract(handle);
    describeExecutionContract(handle);
    describeRunnerContract(handle);
    describeIdempotencyContract(handle);
    describeLimiterContract(handle);
    describeOwnerDataContract(handle);
    describeEmbeddingContract(handle);
    describeUsageContract(handle);
    describeLearnedQueryContract(handle);
    describeSharedDataContract(handle);
    describeNulTextContract(handle);

    describe("store", () => {
      it("answers ping while open", async () => {
        expect(await handle.store.ping()).toBe(true);
      });

      it("resolves a save issued just before close, having written it", async () => {
        const execution = makeExecution();
        const saved = handle.store.executions.save(execution);
        await handle.store.close();
        await expect(saved).resolves.toBe(true);
      });

      it("refuses reads and writes after close, and no longer answers ping", async () => {
        const key = makeKey();
        await handle.store.keys.insert(key);
        await handle.store.close();
        await expect(handle.store.keys.findById(key.id)).rejects.toThrow();
        await expect(handle.store.executions.save(makeExecution())).rejects.toThrow();
        await expect(handle.store.memory.get("default", "k")).rejects.toThrow();
        expect(await handle.store.ping()).toBe(false);
      });
    });
  });
}
