import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import { eventually, makeKey, type StoreHandle, T0 } from "./fixtures.js";

/** `KeyStore`: the lookups auth depends on, revocation and listing. */
export function describeKeyContract(handle: StoreHandle): void {
  describe("keys", () => {
    it("finds an inserted key by hash and by id, with every field intact", async () => {
      const key = makeKey({
        plan: "enterprise",
        limits: { perMinute: 7, perDay: 70 },
        scope: "read-only",
        environment: "staging",
        owner: "acme",
        expiresAt: isoTimestamp(T0 + 86_400_000),
        lastUsedAt: isoTimestamp(T0 + 1000),
        lastRefusedAt: isoTimestamp(T0 + 2000),
      });
      await handle.store.keys.insert(key);
      expect(await handle.store.keys.findByHash(key.hash)).toEqual(key);
      expect(await handle.store.keys.findById(key.id)).toEqual(key);
    });

    it("answers undefined for an unknown hash or id", async () => {
      await handle.store.keys.insert(makeKey());
      expect(await handle.store.keys.findByHash("0".repeat(64))).toBeUndefined();
      expect(await handle.store.keys.findById("key_unknown")).toBeUndefined();
    });

    it("refuses a second key with the same hash", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      await expect(handle.store.keys.insert(makeKey({ hash: key.hash }))).rejects.toThrow();
      expect(await handle.store.keys.findByHash(key.hash)).toEqual(key);
    });

    it("lists keys newest first, whatever the insertion order", async () => {
      const oldest = makeKey({ createdAt: isoTimestamp(T0) });
      const middle = makeKey({ createdAt: isoTimestamp(T0 + 1) });
      const newest = makeKey({ createdAt: isoTimestamp(T0 + 60_000) });
      for (const key of [middle, newest, oldest]) await handle.store.keys.insert(key);
      expect(await handle.store.keys.list()).toEqual([newest, middle, oldest]);
    });

    it("shows a revoked key as revoked on the very next lookup", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      const revokedAt = isoTimestamp(T0 + 5000);
      expect(await handle.store.keys.revoke(key.id, revokedAt)).toBe(true);
      expect((await handle.store.keys.findByHash(key.hash))?.revokedAt).toBe(revokedAt);
      expect((await handle.store.keys.findById(key.id))?.revokedAt).toBe(revokedAt);
    });

    it("keeps the first revocation time when a key is revoked twice", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      await handle.store.keys.revoke(key.id, isoTimestamp(T0 + 1000));
      expect(await handle.store.keys.revoke(key.id, isoTimestamp(T0 + 2000))).toBe(true);
      expect((await handle.store.keys.findById(key.id))?.revokedAt).toBe(isoTimestamp(T0 + 1000));
    });

    it("sets an expiry, never lengthening one already earlier, and sees it on the next lookup", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      expect(await handle.store.keys.findByHash(key.hash)).toEqual(key);
      expect(await handle.store.keys.expire(key.id, isoTimestamp(T0 + 60_000))).toBe(true);
      expect((await handle.store.keys.findByHash(key.hash))?.expiresAt).toBe(isoTimestamp(T0 + 60_000));
      expect(await handle.store.keys.expire(key.id, isoTimestamp(T0 + 120_000))).toBe(true);
      expect((await handle.store.keys.findById(key.id))?.expiresAt).toBe(isoTimestamp(T0 + 60_000));
      expect(await handle.store.keys.expire(key.id, isoTimestamp(T0 + 1000))).toBe(true);
      expect((await handle.store.keys.findById(key.id))?.expiresAt).toBe(isoTimestamp(T0 + 1000));
      expect(await handle.store.keys.expire("key_unknown", isoTimestamp(T0))).toBe(false);
    });

    it("changes a key's name, plan and limits, seen on the very next lookup, and nothing else", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      expect(await handle.store.keys.findByHash(key.hash)).toEqual(key);
      const changes = { name: "renamed", plan: "enterprise" as const, limits: { perMinute: 9, perDay: 99 } };
      expect(await handle.store.keys.update(key.id, changes)).toBe(true);
      expect(await handle.store.keys.findByHash(key.hash)).toEqual({ ...key, ...changes });
      expect(await handle.store.keys.findById(key.id)).toEqual({ ...key, ...changes });
      expect(await handle.store.keys.update("key_unknown", changes)).toBe(false);
    });

    it("answers false when revoking a key that does not exist", async () => {
      expect(await handle.store.keys.revoke("key_unknown", isoTimestamp(T0))).toBe(false);
    });

    it("records a key's last use, eventually, without anyone awaiting it", async () => {
      const key = makeKey();
      const other = makeKey();
      await handle.store.keys.insert(key);
      await handle.store.keys.insert(other);
      const usedAt = isoTimestamp(T0 + 42_000);
      handle.store.keys.markUsed(key.id, usedAt);
      handle.store.keys.markUsed("key_unknown", usedAt);
      const found = await eventually(
        () => handle.store.keys.findById(key.id),
        (value) => value?.lastUsedAt === usedAt,
      );
      expect(found?.lastUsedAt).toBe(usedAt);
      expect((await handle.store.keys.findById(other.id))?.lastUsedAt).toBeNull();
    });

    // A client still calling with a revoked or expired key (audit 26, dashboard #2).
    it("records a dead key's last refused use, eventually, apart from its last use and nothing else", async () => {
      const key = makeKey({ revokedAt: isoTimestamp(T0) });
      const other = makeKey();
      await handle.store.keys.insert(key);
      await handle.store.keys.insert(other);
      const usedAt = isoTimestamp(T0 + 10_000);
      const refusedAt = isoTimestamp(T0 + 42_000);
      // Each has its own coalescing: a last use just written does not hold back a refused one.
      handle.store.keys.markUsed(key.id, usedAt);
      handle.store.keys.markRefusedUse(key.id, refusedAt);
      handle.store.keys.markRefusedUse("key_unknown", refusedAt);
      const found = await eventually(
        () => handle.store.keys.findById(key.id),
        (value) => value?.lastRefusedAt === refusedAt && value.lastUsedAt === usedAt,
      );
      expect(found).toEqual({ ...key, lastUsedAt: usedAt, lastRefusedAt: refusedAt });
      expect(await handle.store.keys.findByHash(key.hash)).toEqual(found);
      expect((await handle.store.keys.list()).find((listed) => listed.id === key.id)).toEqual(found);
      expect((await handle.store.keys.findById(other.id))?.lastRefusedAt).toBeNull();
      expect(await handle.store.keys.list()).toHaveLength(2);
    });

    it("never moves a last refused use backwards when two processes' writes cross", async () => {
      const key = makeKey({ revokedAt: isoTimestamp(T0) });
      await handle.store.keys.insert(key);
      const later = isoTimestamp(T0 + 60_000);
      handle.store.keys.markRefusedUse(key.id, later);
      await eventually(
        () => handle.store.keys.findById(key.id),
        (value) => value?.lastRefusedAt === later,
      );
      // Another process, whose own coalescing lets its first write through, saw an earlier one.
      const another = await handle.openAnother();
      another.keys.markRefusedUse(key.id, isoTimestamp(T0 + 1000));
      // Nothing to wait for when the write is right; a wrong one lands well within this.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await handle.store.keys.findById(key.id))?.lastRefusedAt).toBe(later);
      expect((await another.keys.findById(key.id))?.lastRefusedAt).toBe(later);
    });
  });
}
