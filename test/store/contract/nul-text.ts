import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import { makeExecution, makeKey, type StoreHandle, T0 } from "./fixtures.js";

/**
 * Audit 21 #3: PostgreSQL's `text` cannot hold U+0000, and a NUL sent to it was a 500
 * where SQLite answered. Every adapter answers alike (src/store/nul-rule.ts): an id, a
 * filter or a cursor containing NUL matches nothing, and a discover note keeps its query
 * with the NULs removed.
 */
export function describeNulTextContract(handle: StoreHandle): void {
  describe("U+0000 in what a client sends", () => {
    it("matches no key, execution, message or memory entry, and changes nothing", async () => {
      const { store } = handle;
      const key = makeKey();
      await store.keys.insert(key);
      const execution = makeExecution({ keyId: key.id });
      await store.executions.save(execution);
      const id = execution.record.id;
      expect(await store.keys.findById(`${key.id}\u0000`)).toBeUndefined();
      expect(await store.keys.revoke(`key_\u0000x`, isoTimestamp(T0))).toBe(false);
      expect(await store.keys.update(`key_\u0000x`, { name: "x", plan: key.plan, limits: key.limits })).toBe(
        false,
      );
      expect(await store.executions.get(`exec_\u0000${id}`)).toBeUndefined();
      for (const filter of [
        { skillId: "a\u0000b" },
        { owner: "a\u0000" },
        { keyId: "key_\u0000" },
        { after: "exec_\u0000" },
        { startAt: `${id}\u0000` },
      ]) {
        expect(await store.executions.list({ limit: 10, ...filter }), JSON.stringify(filter)).toEqual([]);
        expect(await store.executions.listResultSizes({ limit: 10, ...filter })).toEqual([]);
      }
      expect(await store.executions.list({ limit: 10 })).toHaveLength(1);
      await store.messages.insert("acme", {
        id: "msg_1",
        channel: "general",
        text: "hi",
        createdAt: isoTimestamp(T0),
      });
      expect(await store.messages.list("acme", { limit: 10, before: "msg_\u0000" })).toEqual([]);
      expect(await store.messages.list("acme", { limit: 10, channel: "gen\u0000" })).toEqual([]);
      expect(await store.messages.has("acme", "msg_1\u0000")).toBe(false);
      await store.memory.set("acme", "a", 1, isoTimestamp(T0));
      expect(await store.memory.list("acme", { limit: 10, prefix: "a\u0000" })).toEqual([]);
      expect(await store.memory.get("acme", "a\u0000")).toBeUndefined();
      expect(await store.memory.delete("acme", "a\u0000")).toBe(false);
    });

    it("keeps a discover note whose query holds NUL, without the NULs", async () => {
      const { store } = handle;
      await store.learnedQueries.noteDiscovers([
        { keyId: "key_nul", owner: "acme", query: "send\u0000message", at: T0, offered: [] },
      ]);
      expect(await store.learnedQueries.lastDiscover("key_nul")).toMatchObject({ query: "sendmessage" });
    });
  });
}
