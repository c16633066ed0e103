import { describe, expect, it } from "vitest";
import type { DiscoverNote, LearnedQueryCaps, LearnedQueryEvent } from "../../../src/core/ports.js";
import type { StoreHandle } from "./fixtures.js";

const T0 = Date.UTC(2026, 2, 14, 9, 26);
const CAPS: LearnedQueryCaps = { perSkill: 50, perOwner: 1000 };

const note = (overrides: Partial<DiscoverNote> = {}): DiscoverNote => ({
  keyId: "key_a",
  owner: "alice",
  query: "find papers",
  at: T0,
  offered: ["research.papers", "research.cite"],
  ...overrides,
});

const event = (overrides: Partial<LearnedQueryEvent> = {}): LearnedQueryEvent => ({
  owner: "alice",
  query: "find papers",
  skillId: "research.papers",
  discoveredAt: T0,
  at: T0 + 1000,
  ...overrides,
});

/** `LearnedQueryStore`: each key's latest discover, and the queries each owner's executions followed. */
export function describeLearnedQueryContract(handle: StoreHandle): void {
  describe("learned queries", () => {
    it("keeps each key's discover written last, even when a clock behind stamped it earlier", async () => {
      const store = handle.store.learnedQueries;
      expect(await store.lastDiscover("key_a")).toBeUndefined();
      await store.noteDiscovers([note(), note({ keyId: "key_b", owner: "bob", query: "weather" })]);
      expect(await store.lastDiscover("key_a")).toEqual(note());
      // A replica whose clock is ahead, then one 200 ms behind it: the second discover is the latest.
      await store.noteDiscovers([note({ query: "first, clock ahead", at: T0 + 200 })]);
      await store.noteDiscovers([note({ query: "second, clock behind", at: T0 + 50 })]);
      expect(await store.lastDiscover("key_a")).toEqual(note({ query: "second, clock behind", at: T0 + 50 }));
      expect((await store.lastDiscover("key_b"))?.query).toBe("weather");
    });

    it("keeps the skills each discover offered, an empty list too", async () => {
      const store = handle.store.learnedQueries;
      await store.noteDiscovers([note(), note({ keyId: "key_b", offered: [] })]);
      expect((await store.lastDiscover("key_a"))?.offered).toEqual(["research.papers", "research.cite"]);
      expect((await store.lastDiscover("key_b"))?.offered).toEqual([]);
      // A later discover's answer replaces the list.
      await store.noteDiscovers([note({ at: T0 + 1, offered: ["weather.now"] })]);
      expect((await store.lastDiscover("key_a"))?.offered).toEqual(["weather.now"]);
    });

    it("claims a discover's first execution once, across processes, until the key's next discover", async () => {
      const store = handle.store.learnedQueries;
      const other = (await handle.openAnother()).learnedQueries;
      // No note yet: nothing to claim.
      expect(await store.claimFirstExecution("key_a", T0)).toBe(false);
      await store.noteDiscovers([note(), note({ keyId: "key_b", owner: "bob" })]);
      // Two processes race for the first execution after the discover: one wins.
      const claims = await Promise.all([
        store.claimFirstExecution("key_a", T0),
        other.claimFirstExecution("key_a", T0),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.claimFirstExecution("key_a", T0)).toBe(false);
      expect(await other.claimFirstExecution("key_a", T0)).toBe(false);
      // Another key's discover is its own.
      expect(await other.claimFirstExecution("key_b", T0)).toBe(true);
      // A claim for a discover that is no longer the key's latest fails.
      await store.noteDiscovers([note({ at: T0 + 1 })]);
      expect(await other.claimFirstExecution("key_a", T0)).toBe(false);
      // The key's next discover can be claimed again, once, even with the time of the last.
      expect(await other.claimFirstExecution("key_a", T0 + 1)).toBe(true);
      expect(await store.claimFirstExecution("key_a", T0 + 1)).toBe(false);
      await store.noteDiscovers([note({ at: T0 + 1 })]);
      expect(await store.claimFirstExecution("key_a", T0 + 1)).toBe(true);
      // The note itself is unchanged by the claims.
      expect(await other.lastDiscover("key_a")).toEqual(note({ at: T0 + 1 }));
    });

    it("takes the note given last of two notes of one key in one batch", async () => {
      const store = handle.store.learnedQueries;
      await store.noteDiscovers([
        note({ query: "first", at: T0 + 2 }),
        note({ query: "second", at: T0 + 1 }),
      ]);
      expect((await store.lastDiscover("key_a"))?.query).toBe("second");
    });

    it("shows a note to another process on the same data", async () => {
      await handle.store.learnedQueries.noteDiscovers([note()]);
      const other = await handle.openAnother();
      expect(await other.learnedQueries.lastDiscover("key_a")).toEqual(note());
    });

    it("shows another process's next note, forget and prune on the very next read, however often it read before", async () => {
      const other = await handle.openAnother();
      const { learnedQueries } = handle.store;
      // Read (and so possibly kept in memory) before each change, the way every execution reads.
      expect(await other.learnedQueries.lastDiscover("key_a")).toBeUndefined();
      expect(await other.learnedQueries.lastDiscover("key_a")).toBeUndefined();
      await learnedQueries.noteDiscovers([note()]);
      expect(await other.learnedQueries.lastDiscover("key_a")).toEqual(note());
      await learnedQueries.noteDiscovers([note({ query: "next", at: T0 + 1 })]);
      expect((await other.learnedQueries.lastDiscover("key_a"))?.query).toBe("next");
      await learnedQueries.forget("alice");
      expect(await other.learnedQueries.lastDiscover("key_a")).toBeUndefined();
      await learnedQueries.noteDiscovers([note({ at: T0 + 2 })]);
      expect(await other.learnedQueries.lastDiscover("key_a")).toEqual(note({ at: T0 + 2 }));
      await learnedQueries.deleteNotesBefore(T0 + 3);
      expect(await other.learnedQueries.lastDiscover("key_a")).toBeUndefined();
    });

    it("counts a (query, skill) pair once per discover", async () => {
      const store = handle.store.learnedQueries;
      expect(await store.record(event(), CAPS)).toBe(true);
      // A second execution after the same discover adds nothing.
      expect(await store.record(event({ at: T0 + 2000 }), CAPS)).toBe(false);
      expect(await store.record(event({ discoveredAt: T0 + 60_000, at: T0 + 61_000 }), CAPS)).toBe(true);
      expect(await store.list("alice", 10)).toEqual([
        { skillId: "research.papers", query: "find papers", count: 2, lastAt: T0 + 61_000 },
      ]);
    });

    it("keeps owners apart", async () => {
      const store = handle.store.learnedQueries;
      await store.record(event(), CAPS);
      await store.record(event({ owner: "bob", query: "weather in paris", skillId: "weather.now" }), CAPS);
      expect((await store.list("alice", 10)).map((entry) => entry.query)).toEqual(["find papers"]);
      expect((await store.list("bob", 10)).map((entry) => entry.skillId)).toEqual(["weather.now"]);
      expect(await store.list("carol", 10)).toEqual([]);
    });

    it("lists most recently executed first, up to the limit", async () => {
      const store = handle.store.learnedQueries;
      for (const [i, query] of ["q1", "q2", "q3"].entries()) {
        await store.record(event({ query, discoveredAt: T0 + i, at: T0 + 100 + i }), CAPS);
      }
      expect((await store.list("alice", 2)).map((entry) => entry.query)).toEqual(["q3", "q2"]);
    });

    it("keeps at most the cap of queries per skill and per owner, dropping the least recently executed", async () => {
      const store = handle.store.learnedQueries;
      const caps = { perSkill: 3, perOwner: 5 };
      for (let i = 0; i < 5; i += 1) {
        await store.record(
          event({ query: `a${i}`, skillId: "skill.a", discoveredAt: T0 + i, at: T0 + i }),
          caps,
        );
      }
      expect((await store.list("alice", 10)).map((entry) => entry.query)).toEqual(["a4", "a3", "a2"]);
      // Re-executing a2 makes it the most recent of its skill: a3 goes instead when a5 comes.
      await store.record(
        event({ query: "a2", skillId: "skill.a", discoveredAt: T0 + 10, at: T0 + 10 }),
        caps,
      );
      await store.record(
        event({ query: "a5", skillId: "skill.a", discoveredAt: T0 + 11, at: T0 + 11 }),
        caps,
      );
      expect((await store.list("alice", 10)).map((entry) => entry.query)).toEqual(["a5", "a2", "a4"]);
      for (let i = 0; i < 3; i += 1) {
        await store.record(
          event({ query: `b${i}`, skillId: "skill.b", discoveredAt: T0 + 20 + i, at: T0 + 20 + i }),
          caps,
        );
      }
      expect((await store.list("alice", 10)).map((entry) => entry.query)).toEqual([
        "b2",
        "b1",
        "b0",
        "a5",
        "a2",
      ]);
      // Another owner's entries are not counted against alice's cap.
      await store.record(event({ owner: "bob", discoveredAt: T0 + 30, at: T0 + 30 }), caps);
      expect(await store.list("alice", 10)).toHaveLength(5);
    });

    it("forgets one owner's learned queries, of one skill or all, and that owner's discovers", async () => {
      const store = handle.store.learnedQueries;
      await store.record(event(), CAPS);
      await store.record(event({ query: "uuid please", skillId: "id.uuid" }), CAPS);
      await store.record(event({ owner: "bob", query: "weather in paris", skillId: "weather.now" }), CAPS);
      await store.noteDiscovers([note(), note({ keyId: "key_b", owner: "bob", query: "weather" })]);

      expect(await store.forget("alice", "id.uuid")).toBe(1);
      expect((await store.list("alice", 10)).map((entry) => entry.skillId)).toEqual(["research.papers"]);
      expect(await store.lastDiscover("key_a")).toBeUndefined();

      expect(await store.forget("alice")).toBe(1);
      expect(await store.list("alice", 10)).toEqual([]);
      expect(await store.forget("alice")).toBe(0);
      // Bob's learning and latest discover are untouched.
      expect((await store.list("bob", 10)).map((entry) => entry.skillId)).toEqual(["weather.now"]);
      expect((await store.lastDiscover("key_b"))?.query).toBe("weather");
    });

    it("deletes notes taken before a time", async () => {
      const store = handle.store.learnedQueries;
      await store.noteDiscovers([note({ at: T0 }), note({ keyId: "key_b", at: T0 + 10 })]);
      expect(await store.deleteNotesBefore(T0 + 5)).toBe(1);
      expect(await store.lastDiscover("key_a")).toBeUndefined();
      expect(await store.lastDiscover("key_b")).toBeDefined();
    });
  });
}
