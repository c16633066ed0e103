import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { ServiceError } from "../../src/core/errors.js";
import { KeyService } from "../../src/core/keys/key-service.js";
import { MemoryData, openMemoryStore } from "../../src/store/memory/index.js";

const T0 = Date.UTC(2026, 2, 14, 9, 0, 0);

/**
 * A key service over an in-memory store holding `count` keys, created a second apart (k0
 * oldest), and the pages the store was asked for since (`reads`: empty it to count anew).
 */
async function countedServiceWithKeys(count: number) {
  const clock = new ManualClock(T0);
  const data = new MemoryData();
  const store = openMemoryStore({ clock, data }).keys;
  const reads: unknown[] = [];
  const listPage = store.listPage.bind(store);
  store.listPage = async (query) => {
    reads.push(query);
    return listPage(query);
  };
  const keys = new KeyService(store, clock);
  const secrets: string[] = [];
  for (let i = 0; i < count; i++) {
    secrets.push((await keys.create({ name: `k${i}`, scope: "read-only" })).secret);
    clock.advance(1000);
  }
  return { keys, reads, clock, data, secrets };
}

/** A key service over an in-memory store holding `count` keys (see `countedServiceWithKeys`). */
async function serviceWithKeys(count: number) {
  return (await countedServiceWithKeys(count)).keys;
}

const NEWEST_FIRST = { search: { kind: "all" }, order: "created", descending: true } as const;
const names = (page: { keys: { name: string }[] }) => page.keys.map((key) => key.name);

describe("pages of keys", () => {
  it("goes forward and back through the pages with their cursors, the first without one", async () => {
    const keys = await serviceWithKeys(7);
    const first = await keys.page(NEWEST_FIRST, 3);
    expect(names(first)).toEqual(["k6", "k5", "k4"]);
    expect(first.previous).toBeNull();
    const second = await keys.page(NEWEST_FIRST, 3, first.next ?? "");
    expect(names(second)).toEqual(["k3", "k2", "k1"]);
    const last = await keys.page(NEWEST_FIRST, 3, second.next ?? "");
    expect(names(last)).toEqual(["k0"]);
    expect(last.next).toBeNull();
    const backToSecond = await keys.page(NEWEST_FIRST, 3, last.previous ?? "");
    expect(names(backToSecond)).toEqual(["k3", "k2", "k1"]);
    const backToFirst = await keys.page(NEWEST_FIRST, 3, backToSecond.previous ?? "");
    expect(names(backToFirst)).toEqual(["k6", "k5", "k4"]);
    // Back on the first page: nothing before it, as when it was reached without a cursor.
    expect(backToFirst.previous).toBeNull();
    expect(backToFirst.next).not.toBeNull();
  });

  it("has one page and no cursors when every key fits", async () => {
    const keys = await serviceWithKeys(3);
    expect(await keys.page(NEWEST_FIRST, 3)).toMatchObject({ previous: null, next: null });
  });

  it("refuses a cursor it did not return, and one of another listing", async () => {
    const keys = await serviceWithKeys(1);
    const executionsCursor = Buffer.from(JSON.stringify({ id: "exec_1", of: "executions" })).toString(
      "base64url",
    );
    const wrongWay = Buffer.from(JSON.stringify({ id: "key_1", from: "sideways", of: "keys" })).toString(
      "base64url",
    );
    for (const cursor of ["nonsense", executionsCursor, wrongWay]) {
      await expect(keys.page(NEWEST_FIRST, 3, cursor)).rejects.toThrow(ServiceError);
    }
  });

  // A cursor made under one order, tab or search was read as a place in another.
  it("refuses a cursor of another order, tab or search, and one whose place is none in its order", async () => {
    const keys = await serviceWithKeys(7);
    const { next } = await keys.page(NEWEST_FIRST, 3);
    expect(next).not.toBeNull();
    const others = [
      { ...NEWEST_FIRST, descending: false },
      { ...NEWEST_FIRST, order: "name" },
      { ...NEWEST_FIRST, status: "revoked" },
      { ...NEWEST_FIRST, search: { kind: "text", text: "k" } },
    ] as const;
    for (const listing of others) {
      await expect(keys.page(listing, 3, next ?? ""), JSON.stringify(listing)).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
    const decoded = JSON.parse(Buffer.from(next ?? "", "base64url").toString("utf8")) as Record<
      string,
      string
    >;
    // A creation time that is none (PostgreSQL would fail on it, not answer), and a cursor without a place.
    for (const value of ["yesterday", "2026-03-14", "", "0000-01-01T00:00:00.000Z"]) {
      const forged = Buffer.from(JSON.stringify({ ...decoded, value })).toString("base64url");
      await expect(keys.page(NEWEST_FIRST, 3, forged), value).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
    const { value: _value, ...placeless } = decoded;
    const noPlace = Buffer.from(JSON.stringify(placeless)).toString("base64url");
    await expect(keys.page(NEWEST_FIRST, 3, noPlace)).rejects.toMatchObject({ code: "invalid_request" });
    // The same cursor in its own listing still pages on.
    expect(names(await keys.page(NEWEST_FIRST, 3, next ?? ""))).toEqual(["k3", "k2", "k1"]);
  });

  // The key a page ended at was looked up for its place when the next page was read: used
  // since (last-used order), it had moved to the top and the next page repeated the first;
  // renamed, it skipped keys; gone, the cursor was refused.
  it("pages on from where a page ended, though the key there was used, renamed or removed since", async () => {
    const { keys, clock, data, secrets } = await countedServiceWithKeys(7);
    for (const secret of secrets) {
      await keys.authenticate(secret);
      clock.advance(1000);
    }
    const byUse = { search: { kind: "all" }, order: "last_used", descending: true } as const;
    const first = await keys.page(byUse, 3);
    expect(names(first)).toEqual(["k6", "k5", "k4"]);
    clock.advance(60_000);
    await keys.authenticate(secrets[4] ?? "");
    const second = await keys.page(byUse, 3, first.next ?? "");
    expect(names(second)).toEqual(["k3", "k2", "k1"]);

    const byName = { search: { kind: "all" }, order: "name", descending: false } as const;
    const firstByName = await keys.page(byName, 3);
    expect(names(firstByName)).toEqual(["k0", "k1", "k2"]);
    await keys.edit(firstByName.keys[2]?.id ?? "", { name: "k9" });
    expect(names(await keys.page(byName, 3, firstByName.next ?? ""))).toEqual(["k3", "k4", "k5"]);

    const newest = await keys.page(NEWEST_FIRST, 3);
    data.keys.delete(newest.keys[2]?.id ?? "");
    const past = await keys.page(NEWEST_FIRST, 3, newest.next ?? "");
    expect(names(past)).toEqual(["k3", "k9", "k1"]);
    expect(names(await keys.page(NEWEST_FIRST, 3, past.previous ?? ""))).toEqual(["k6", "k5"]);
  });

  it("reads no page before when asked not to", async () => {
    const { keys, reads } = await countedServiceWithKeys(7);
    const { next } = await keys.page(NEWEST_FIRST, 3);
    reads.length = 0;
    const forward = await keys.page(NEWEST_FIRST, 3, next ?? "", { previous: false });
    expect(names(forward)).toEqual(["k3", "k2", "k1"]);
    expect(forward.previous).toBeNull();
    expect(reads).toHaveLength(1);
    reads.length = 0;
    const both = await keys.page(NEWEST_FIRST, 3, next ?? "");
    expect(both.previous).not.toBeNull();
    expect(reads).toHaveLength(2);
  });

  it("lists every key, reading more pages than one, and only forward: one read a page", async () => {
    const { keys, reads } = await countedServiceWithKeys(1203);
    reads.length = 0;
    const all = await keys.list();
    expect(reads).toHaveLength(3);
    expect(all).toHaveLength(1203);
    expect(new Set(all.map((key) => key.id)).size).toBe(1203);
    expect(all[0]?.name).toBe("k1202");
    expect(all.at(-1)?.name).toBe("k0");
  });
});
