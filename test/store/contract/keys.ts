import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { ApiKey } from "../../../src/core/keys/api-key.js";
import { type KeyPlace, keyOrderValue } from "../../../src/core/keys/key-listing.js";
import type { KeyPageQuery } from "../../../src/core/ports.js";
import { EVERY_KEY, eventually, makeKey, type StoreHandle, T0 } from "./fixtures.js";

/** A new key that a roll of the key `id` makes. */
const replacing = (id: string, overrides: Partial<ApiKey> = {}) => ({ ...makeKey(overrides), replaces: id });

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

    it("finds several keys by their ids in one call, each once, skipping unknown ids", async () => {
      const [a, b, c] = [makeKey({ owner: "acme" }), makeKey(), makeKey()];
      for (const key of [a, b, c]) await handle.store.keys.insert(key);
      const found = await handle.store.keys.findByIds([c.id, "key_unknown", a.id, c.id]);
      expect(found.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
        [a, c].sort((x, y) => x.id.localeCompare(y.id)),
      );
      expect(await handle.store.keys.findByIds([])).toEqual([]);
      expect(await handle.store.keys.findByIds(["key_unknown"])).toEqual([]);
      expect(await handle.store.keys.findByIds([`${a.id}\u0000`, b.id])).toEqual([b]);
    });

    it("finds more keys by id than one statement binds", async () => {
      const keys = Array.from({ length: 600 }, () => makeKey());
      for (const key of keys) await handle.store.keys.insert(key);
      const found = await handle.store.keys.findByIds(keys.map((key) => key.id));
      expect(new Set(found.map((key) => key.id))).toEqual(new Set(keys.map((key) => key.id)));
      expect(found).toHaveLength(600);
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
      expect(await handle.store.keys.listPage(EVERY_KEY)).toEqual([newest, middle, oldest]);
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

    it("rolls a key: inserts its replacement and makes the key expire, never later than it would, seen on the next lookup", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      expect(await handle.store.keys.findByHash(key.hash)).toEqual(key);
      const replacement = replacing(key.id, { createdAt: isoTimestamp(T0 + 5) });
      expect(await handle.store.keys.roll(replacement, isoTimestamp(T0 + 60_000))).toBe(true);
      expect((await handle.store.keys.findByHash(key.hash))?.expiresAt).toBe(isoTimestamp(T0 + 60_000));
      expect(await handle.store.keys.findByHash(replacement.hash)).toEqual(replacement);
      expect(await handle.store.keys.findReplacement(key.id)).toEqual(replacement);

      const expiring = makeKey({ expiresAt: isoTimestamp(T0 + 1000) });
      await handle.store.keys.insert(expiring);
      expect(await handle.store.keys.roll(replacing(expiring.id), isoTimestamp(T0 + 60_000))).toBe(true);
      expect((await handle.store.keys.findById(expiring.id))?.expiresAt).toBe(isoTimestamp(T0 + 1000));
    });

    it("rolls a key once: a second roll, even at the same time, inserts nothing and changes nothing", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      const [first, second] = [replacing(key.id), replacing(key.id)];
      const rolled = await Promise.all([
        handle.store.keys.roll(first, isoTimestamp(T0 + 60_000)),
        handle.store.keys.roll(second, isoTimestamp(T0 + 1000)),
      ]);
      expect(rolled.filter(Boolean)).toHaveLength(1);
      const [winner, loser] = rolled[0] ? [first, second] : [second, first];
      expect(await handle.store.keys.findReplacement(key.id)).toEqual(winner);
      expect(await handle.store.keys.findByHash(loser.hash)).toBeUndefined();
      expect((await handle.store.keys.findById(key.id))?.expiresAt).toBe(
        isoTimestamp(winner === first ? T0 + 60_000 : T0 + 1000),
      );
      expect(await handle.store.keys.roll(replacing(key.id), isoTimestamp(T0))).toBe(false);
      expect((await handle.store.keys.findById(key.id))?.expiresAt).toBe(
        isoTimestamp(winner === first ? T0 + 60_000 : T0 + 1000),
      );
    });

    it("finds no replacement for a key never rolled, or no key", async () => {
      const key = makeKey();
      await handle.store.keys.insert(key);
      expect(await handle.store.keys.findReplacement(key.id)).toBeUndefined();
      expect(await handle.store.keys.findReplacement("key_unknown")).toBeUndefined();
      expect(await handle.store.keys.findReplacement(`${key.id}\u0000`)).toBeUndefined();
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
      expect((await handle.store.keys.listPage(EVERY_KEY)).find((listed) => listed.id === key.id)).toEqual(
        found,
      );
      expect((await handle.store.keys.findById(other.id))?.lastRefusedAt).toBeNull();
      expect(await handle.store.keys.listPage(EVERY_KEY)).toHaveLength(2);
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

  describe("key pages", () => {
    const NOW = T0 + 3_600_000;
    const base = {
      search: { kind: "all" },
      order: "created",
      descending: true,
      now: isoTimestamp(NOW),
    } satisfies Omit<KeyPageQuery, "limit">;

    /** A key's place in the order of `query`. */
    const placeOf = (key: ApiKey, query: Omit<KeyPageQuery, "limit" | "after">): KeyPlace => ({
      value: keyOrderValue(query.order, key, Date.parse(query.now)),
      id: key.id,
    });

    /** Every page of `limit` keys, each continuing after the last key of the one before: their names. */
    async function pagesOf(query: Omit<KeyPageQuery, "limit" | "after">, limit: number): Promise<string[][]> {
      const pages: string[][] = [];
      let after: KeyPlace | undefined;
      for (;;) {
        const page = await handle.store.keys.listPage({ ...query, after, limit });
        if (page.length === 0) return pages;
        expect(page.length).toBeLessThanOrEqual(limit);
        pages.push(page.map((key) => key.name));
        const last = page.at(-1);
        after = last && placeOf(last, query);
        if (pages.length > 20) throw new Error("the pages never end");
      }
    }

    async function insert(...keys: ApiKey[]): Promise<void> {
      // Not in any order the listing has: the store must order them itself.
      for (const key of [...keys].reverse()) await handle.store.keys.insert(key);
    }

    it("pages keys newest first, the next page holding the rest and no key twice", async () => {
      const keys = Array.from({ length: 7 }, (_, i) =>
        makeKey({ id: `key_${i}`, name: `k${i}`, createdAt: isoTimestamp(T0 + i * 1000) }),
      );
      // Two created at the same instant: the greater id first, and neither lost at a page's end.
      keys.push(makeKey({ id: "key_2b", name: "k2b", createdAt: isoTimestamp(T0 + 2000) }));
      await insert(...keys);
      expect(await pagesOf(base, 3)).toEqual([
        ["k6", "k5", "k4"],
        ["k3", "k2b", "k2"],
        ["k1", "k0"],
      ]);
      expect(await pagesOf({ ...base, descending: false }, 3)).toEqual([
        ["k0", "k1", "k2"],
        ["k2b", "k3", "k4"],
        ["k5", "k6"],
      ]);
    });

    it("holds a status filter and a search across pages", async () => {
      const at = (i: number) => isoTimestamp(T0 + i * 1000);
      await insert(
        makeKey({ name: "alpha one", createdAt: at(1) }),
        makeKey({ name: "alpha two", createdAt: at(2), revokedAt: at(3) }),
        makeKey({ name: "Alpha three", createdAt: at(3) }),
        makeKey({ name: "beta", createdAt: at(4) }),
        makeKey({ name: "alpha four", createdAt: at(5), expiresAt: isoTimestamp(NOW) }),
        makeKey({ name: "alpha five", createdAt: at(6), expiresAt: isoTimestamp(NOW + 1) }),
        makeKey({ name: "gamma", createdAt: at(7), owner: "ALPHA-team" }),
        makeKey({ name: "alpha six", createdAt: at(8) }),
      );
      const alpha = { ...base, search: { kind: "text", text: "alpha" } } satisfies Omit<
        KeyPageQuery,
        "limit"
      >;
      expect(await pagesOf({ ...alpha, status: "active" }, 2)).toEqual([
        ["alpha six", "gamma"],
        ["alpha five", "Alpha three"],
        ["alpha one"],
      ]);
      expect(await pagesOf({ ...alpha, status: "expired" }, 2)).toEqual([["alpha four"]]);
      expect(await pagesOf({ ...alpha, status: "revoked" }, 2)).toEqual([["alpha two"]]);
      expect(await pagesOf({ ...base, status: "active" }, 3)).toEqual([
        ["alpha six", "gamma", "alpha five"],
        ["beta", "Alpha three", "alpha one"],
      ]);
      expect(await handle.store.keys.countByStatus(alpha.search, base.now)).toEqual({
        active: 5,
        revoked: 1,
        expired: 1,
      });
      expect(await handle.store.keys.countByStatus({ kind: "all" }, base.now)).toEqual({
        active: 6,
        revoked: 1,
        expired: 1,
      });
      expect(await handle.store.keys.countByStatus({ kind: "text", text: "delta" }, base.now)).toEqual({
        active: 0,
        revoked: 0,
        expired: 0,
      });
    });

    it("finds keys by any shown field, ignoring case, and a masked key by its prefix and last four", async () => {
      await insert(
        makeKey({ id: "key_findme", name: "one", createdAt: isoTimestamp(T0 + 3) }),
        makeKey({ name: "two", owner: "Acme", createdAt: isoTimestamp(T0 + 2) }),
        makeKey({ name: "three", prefix: "sk_test_QrSt", last4: "Wx12", createdAt: isoTimestamp(T0 + 1) }),
        makeKey({ name: "four", prefix: "sk_test_QrSt", last4: "Zz99", environment: "staging" }),
      );
      const names = async (search: KeyPageQuery["search"]) =>
        (await handle.store.keys.listPage({ ...base, search, limit: 10 })).map((key) => key.name);
      expect(await names({ kind: "text", text: "findme" })).toEqual(["one"]);
      expect(await names({ kind: "text", text: "acme" })).toEqual(["two"]);
      expect(await names({ kind: "text", text: "sk_test_qr" })).toEqual(["three", "four"]);
      expect(await names({ kind: "text", text: "stag" })).toEqual(["four"]);
      // A text search is a substring, never a pattern.
      expect(await names({ kind: "text", text: "%" })).toEqual([]);
      expect(await names({ kind: "masked", prefix: "sk_test_QrSt", last4: "Wx12" })).toEqual(["three"]);
      expect(await names({ kind: "masked", prefix: "sk_test_qrst", last4: "wx12" })).toEqual([]);
    });

    it("pages in every order, ties by id in the same direction, both ways", async () => {
      const at = (i: number) => isoTimestamp(T0 + i * 1000);
      await insert(
        makeKey({ id: "key_a", name: "beta", scope: "read-only", plan: "free", lastUsedAt: at(5) }),
        makeKey({ id: "key_b", name: "Alpha", plan: "enterprise", revokedAt: at(1) }),
        makeKey({ id: "key_c", name: "alpha", scope: "read-only", lastUsedAt: at(9) }),
        makeKey({ id: "key_d", name: "_under", expiresAt: isoTimestamp(NOW - 1) }),
        makeKey({ id: "key_e", name: "Zulu", plan: "free", lastUsedAt: at(2) }),
      );
      const expected: Record<string, string[]> = {
        // ASCII letters compare lowercased: "_" comes before every lowercase letter (after "Z").
        name: ["_under", "Alpha", "alpha", "beta", "Zulu"],
        last_used: ["Alpha", "_under", "Zulu", "beta", "alpha"],
        status: ["beta", "alpha", "Zulu", "_under", "Alpha"],
        scope: ["Alpha", "_under", "Zulu", "beta", "alpha"],
        plan: ["Alpha", "beta", "Zulu", "alpha", "_under"],
      };
      for (const [order, names] of Object.entries(expected)) {
        const query = { ...base, order: order as KeyPageQuery["order"] };
        expect((await pagesOf({ ...query, descending: false }, 2)).flat(), order).toEqual(names);
        expect((await pagesOf(query, 2)).flat(), `${order} descending`).toEqual([...names].reverse());
      }
    });

    it("continues after a key the search no longer finds, from the place it had", async () => {
      const keys = ["a", "b", "c", "d"].map((name, i) =>
        makeKey({ name, createdAt: isoTimestamp(T0 + i * 1000) }),
      );
      await insert(...keys);
      const [, , c] = keys;
      if (!c) throw new Error("no key c");
      await handle.store.keys.revoke(c.id, isoTimestamp(T0));
      const after = placeOf(c, base);
      const active = await handle.store.keys.listPage({ ...base, status: "active", after, limit: 10 });
      expect(active.map((key) => key.name)).toEqual(["b", "a"]);
    });

    // A cursor holds the place a page ended at, not a key to look up: the key there may
    // have moved (renamed, used) or be gone, and the next page is still the keys past it.
    it("continues past a place whichever key holds it now, or none", async () => {
      const at = (i: number) => isoTimestamp(T0 + i * 1000);
      await insert(
        makeKey({ id: "key_a", name: "a", createdAt: at(1), lastUsedAt: at(11) }),
        makeKey({ id: "key_b", name: "b", createdAt: at(2) }),
        makeKey({ id: "key_c", name: "c", createdAt: at(3), lastUsedAt: at(13) }),
        makeKey({ id: "key_d", name: "d", createdAt: at(4), lastUsedAt: at(14) }),
      );
      const names = async (query: Omit<KeyPageQuery, "limit" | "after">, after: KeyPlace) =>
        (await handle.store.keys.listPage({ ...query, after, limit: 10 })).map((key) => key.name);
      // No key was created at 2.5 s: the keys older than that, newest first.
      expect(await names(base, { value: at(2.5), id: "key_gone" })).toEqual(["b", "a"]);
      expect(await names({ ...base, descending: false }, { value: at(2.5), id: "key_gone" })).toEqual([
        "c",
        "d",
      ]);
      // Where c was before it was renamed "zz": past it by name are the names after "c".
      await handle.store.keys.update("key_c", {
        name: "zz",
        plan: "pro",
        limits: { perMinute: 60, perDay: 1000 },
      });
      expect(await names({ ...base, order: "name", descending: false }, { value: "c", id: "key_c" })).toEqual(
        ["d", "zz"],
      );
      const byUse = { ...base, order: "last_used", descending: true } as const;
      // Past a key used at 13 s, whoever it was: the keys used earlier, then the one never used.
      expect(await names(byUse, { value: at(13), id: "key_zz" })).toEqual(["zz", "a", "b"]);
      expect(await names(byUse, { value: at(13), id: "key_c" })).toEqual(["a", "b"]);
      // Past a never-used key's place, "": only never-used keys of smaller ids.
      expect(await names(byUse, { value: "", id: "key_c" })).toEqual(["b"]);
      expect(await names({ ...byUse, descending: false }, { value: "", id: "key_b" })).toEqual([
        "a",
        "zz",
        "d",
      ]);
    });
  });
}
