import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { StoredMessage } from "../../../src/core/skills/skill.js";
import { type StoreHandle, T0 } from "./fixtures.js";

const message = (id: string, channel: string, offsetMs: number): StoredMessage => ({
  id,
  channel,
  text: `text of ${id}`,
  createdAt: isoTimestamp(T0 + offsetMs),
});

/** `MessageStore` and `MemoryStore`: per-owner data that skills read and write. */
export function describeOwnerDataContract(handle: StoreHandle): void {
  describe("messages", () => {
    const seed = async () => {
      const { messages } = handle.store;
      const m1 = message("msg_1", "general", 0);
      const m2 = message("msg_2", "alerts", 1000);
      const m3 = message("msg_3", "general", 2000);
      const m4 = message("msg_4", "general", 2000);
      for (const m of [m3, m1, m4, m2]) await messages.insert("acme", m);
      await messages.insert("globex", message("msg_x", "general", 5000));
      return { m1, m2, m3, m4 };
    };

    it("lists an owner's messages newest first, and only that owner's", async () => {
      const { m1, m2, m3, m4 } = await seed();
      expect(await handle.store.messages.list("acme", { limit: 10 })).toEqual([m4, m3, m2, m1]);
      expect((await handle.store.messages.list("globex", { limit: 10 })).map((m) => m.id)).toEqual(["msg_x"]);
      expect(await handle.store.messages.list("nobody", { limit: 10 })).toEqual([]);
    });

    it("filters by channel and honours the limit", async () => {
      const { m3, m4 } = await seed();
      expect(await handle.store.messages.list("acme", { channel: "general", limit: 2 })).toEqual([m4, m3]);
      expect(await handle.store.messages.list("acme", { channel: "none", limit: 2 })).toEqual([]);
    });

    it("continues strictly before the message whose id is the cursor", async () => {
      const { m1, m2, m3 } = await seed();
      expect(await handle.store.messages.list("acme", { before: "msg_4", limit: 10 })).toEqual([m3, m2, m1]);
      expect(
        await handle.store.messages.list("acme", { before: "msg_3", channel: "general", limit: 10 }),
      ).toEqual([m1]);
    });

    it("finds nothing before another owner's message id", async () => {
      await seed();
      expect(await handle.store.messages.list("acme", { before: "msg_x", limit: 10 })).toEqual([]);
    });

    it("knows an owner's message ids, and neither another owner's nor an unknown one", async () => {
      await seed();
      expect(await handle.store.messages.has("acme", "msg_1")).toBe(true);
      expect(await handle.store.messages.has("acme", "msg_x")).toBe(false);
      expect(await handle.store.messages.has("globex", "msg_x")).toBe(true);
      expect(await handle.store.messages.has("acme", "msg_9")).toBe(false);
    });
  });

  describe("memory", () => {
    it("stores any JSON value and returns it with its update time", async () => {
      const { memory } = handle.store;
      const values = [{ a: [1, { b: null }] }, [1, "2"], "text", 3.25, 0, false, null];
      for (const [i, value] of values.entries()) {
        await memory.set("acme", `k${i}`, value, isoTimestamp(T0 + i));
      }
      for (const [i, value] of values.entries()) {
        expect(await memory.get("acme", `k${i}`)).toEqual({ value, updatedAt: isoTimestamp(T0 + i) });
      }
      expect(await memory.get("acme", "missing")).toBeUndefined();
    });

    it("overwrites a key and deletes it, answering whether it existed", async () => {
      const { memory } = handle.store;
      await memory.set("acme", "k", 1, isoTimestamp(T0));
      await memory.set("acme", "k", { v: 2 }, isoTimestamp(T0 + 1));
      expect(await memory.get("acme", "k")).toEqual({ value: { v: 2 }, updatedAt: isoTimestamp(T0 + 1) });
      expect(await memory.delete("acme", "k")).toBe(true);
      expect(await memory.delete("acme", "k")).toBe(false);
      expect(await memory.get("acme", "k")).toBeUndefined();
    });

    // memory.set said `replaced` from a read before its write: another write in between
    // (another execution, another replica) made it wrong. The write itself now says it.
    it("answers from the write itself whether the key had a value, deleted or not", async () => {
      const { memory } = handle.store;
      expect(await memory.set("acme", "k", 1, isoTimestamp(T0))).toEqual({ replaced: false });
      expect(await memory.set("acme", "k", null, isoTimestamp(T0 + 1))).toEqual({ replaced: true });
      expect(await memory.set("acme", "k", false, isoTimestamp(T0 + 2))).toEqual({ replaced: true });
      expect(await memory.set("globex", "k", 1, isoTimestamp(T0))).toEqual({ replaced: false });
      await memory.delete("acme", "k");
      expect(await memory.set("acme", "k", 2, isoTimestamp(T0 + 3))).toEqual({ replaced: false });
    });

    it("keeps owners apart: the same key holds a value per owner", async () => {
      const { memory } = handle.store;
      await memory.set("acme", "k", "acme's", isoTimestamp(T0));
      await memory.set("globex", "k", "globex's", isoTimestamp(T0));
      expect((await memory.get("acme", "k"))?.value).toBe("acme's");
      expect(await memory.delete("globex", "k")).toBe(true);
      expect((await memory.get("acme", "k"))?.value).toBe("acme's");
      expect(await memory.list("globex", { limit: 10 })).toEqual([]);
    });

    it("lists a page after a key, with or without a prefix", async () => {
      const { memory } = handle.store;
      for (const key of ["a1", "a2", "a3", "b1", "b2"]) await memory.set("acme", key, 1, isoTimestamp(T0));
      const list = async (options: { prefix?: string; after?: string; limit: number }) =>
        (await memory.list("acme", options)).map((entry) => entry.key);
      expect(await list({ after: "a2", limit: 2 })).toEqual(["a3", "b1"]);
      expect(await list({ after: "a25", limit: 10 })).toEqual(["a3", "b1", "b2"]);
      expect(await list({ prefix: "a", after: "a1", limit: 10 })).toEqual(["a2", "a3"]);
      expect(await list({ prefix: "a", after: "a3", limit: 10 })).toEqual([]);
      expect(await list({ prefix: "b", after: "a3", limit: 10 })).toEqual(["b1", "b2"]);
    });

    it("lists keys in order, by literal case-sensitive prefix, up to the limit", async () => {
      const { memory } = handle.store;
      const keys = ["b", "a_1", "a%", "ab", "a_2", "A_3", "a*", "a?", "a[x]", "a"];
      for (const key of keys) await memory.set("acme", key, 1, isoTimestamp(T0));
      await memory.set("globex", "a_9", 1, isoTimestamp(T0));
      const list = async (prefix: string | undefined, limit = 100) =>
        (await memory.list("acme", { prefix, limit })).map((entry) => entry.key);
      expect(await list(undefined)).toEqual([...keys].sort());
      expect(await list(undefined, 2)).toEqual(["A_3", "a"]);
      expect(await list("a_")).toEqual(["a_1", "a_2"]);
      expect(await list("a%")).toEqual(["a%"]);
      expect(await list("a*")).toEqual(["a*"]);
      expect(await list("a?")).toEqual(["a?"]);
      expect(await list("a[")).toEqual(["a[x]"]);
      expect(await list("A")).toEqual(["A_3"]);
      expect(await list("a_", 1)).toEqual(["a_1"]);
      expect(await memory.list("acme", { prefix: "b", limit: 10 })).toEqual([
        { key: "b", updatedAt: isoTimestamp(T0) },
      ]);
    });
  });
}
