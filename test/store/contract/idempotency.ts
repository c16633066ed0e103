import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { IdempotencyEntry } from "../../../src/core/ports.js";
import { type StoreHandle, T0, uniqueId } from "./fixtures.js";

const HOUR_MS = 3_600_000;

const entry = (overrides: Partial<IdempotencyEntry> = {}): IdempotencyEntry => ({
  keyId: "key_1",
  idempotencyKey: "order-42",
  requestHash: "a".repeat(64),
  executionId: uniqueId("exe"),
  mode: "sync",
  createdAt: isoTimestamp(T0),
  expiresAt: isoTimestamp(T0 + 24 * HOUR_MS),
  ...overrides,
});

/** `IdempotencyStore.reserve`: insert-if-absent, expired entries count as absent. */
export function describeIdempotencyContract(handle: StoreHandle): void {
  describe("idempotency", () => {
    it("reserves a new key, then returns the first entry to a repeat", async () => {
      const first = entry({ mode: "async" });
      expect(await handle.store.idempotency.reserve(first)).toEqual({ reserved: true });
      const repeat = entry({ requestHash: "b".repeat(64), createdAt: isoTimestamp(T0 + 1000) });
      expect(await handle.store.idempotency.reserve(repeat)).toEqual({ reserved: false, existing: first });
    });

    it("scopes idempotency keys to the API key", async () => {
      expect(await handle.store.idempotency.reserve(entry({ keyId: "key_1" }))).toEqual({ reserved: true });
      expect(await handle.store.idempotency.reserve(entry({ keyId: "key_2" }))).toEqual({ reserved: true });
      expect(await handle.store.idempotency.reserve(entry({ idempotencyKey: "other" }))).toEqual({
        reserved: true,
      });
    });

    it("replaces an expired entry as if it were absent", async () => {
      await handle.store.idempotency.reserve(entry({ expiresAt: isoTimestamp(T0 + HOUR_MS) }));
      const second = entry({
        createdAt: isoTimestamp(T0 + HOUR_MS),
        expiresAt: isoTimestamp(T0 + 25 * HOUR_MS),
      });
      expect(await handle.store.idempotency.reserve(second)).toEqual({ reserved: true });
      const third = entry({ createdAt: isoTimestamp(T0 + 2 * HOUR_MS) });
      expect(await handle.store.idempotency.reserve(third)).toEqual({ reserved: false, existing: second });
    });

    it("withdraws a reservation of its own execution only, so that a repeat reserves again", async () => {
      const first = entry();
      await handle.store.idempotency.reserve(first);
      await handle.store.idempotency.withdraw(first.keyId, first.idempotencyKey, uniqueId("exe"));
      const repeat = entry({ createdAt: isoTimestamp(T0 + 1000) });
      expect(await handle.store.idempotency.reserve(repeat)).toEqual({ reserved: false, existing: first });
      await handle.store.idempotency.withdraw(first.keyId, first.idempotencyKey, first.executionId);
      expect(await handle.store.idempotency.reserve(repeat)).toEqual({ reserved: true });
    });

    it("takes over an abandoned reservation only while it still names the abandoned execution, once", async () => {
      const abandoned = entry();
      await handle.store.idempotency.reserve(abandoned);
      const later = { createdAt: isoTimestamp(T0 + 2 * 60_000), expiresAt: isoTimestamp(T0 + 25 * HOUR_MS) };
      const takers = Array.from({ length: 5 }, () => entry(later));
      const taken = await Promise.all(
        takers.map((taker) => handle.store.idempotency.takeOver(taker, abandoned.executionId)),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
      const winner = takers[taken.indexOf(true)];
      const repeat = entry({ createdAt: isoTimestamp(T0 + 3 * 60_000) });
      expect(await handle.store.idempotency.reserve(repeat)).toEqual({ reserved: false, existing: winner });
      // Another key's entry, or one naming a different execution, is left alone.
      expect(await handle.store.idempotency.takeOver(entry({ keyId: "key_2" }), abandoned.executionId)).toBe(
        false,
      );
      // The abandoned execution's id no longer holds the key: a second take-over finds nothing.
      expect(await handle.store.idempotency.takeOver(entry(later), abandoned.executionId)).toBe(false);
      expect(await handle.store.idempotency.reserve(repeat)).toEqual({ reserved: false, existing: winner });
    });

    it("reserves a key exactly once when 20 requests race for it", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => handle.store.idempotency.reserve(entry())),
      );
      expect(results.filter((result) => result.reserved)).toHaveLength(1);
    });
  });
}
