import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ManualClock } from "../../src/core/clock.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import { makeCore } from "./make-core.js";

const annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const textSkill = (id: string, title: string, description: string) =>
  defineSkill({
    id,
    title,
    description,
    tags: ["text"],
    params: z.object({ text: z.string() }),
    result: z.object({ ok: z.boolean() }),
    annotations,
    examples: [],
    run: async () => ({ ok: true }),
  });

const skills = [
  textSkill("text.store", "Store text", "Stores a text in a file."),
  textSkill("text.keep", "Keep a note", "Keeps a short note with a text."),
  textSkill("text.count", "Count words", "Counts the words of a text."),
];
const QUERY = "store a short text";
const SIMILAR = "please store a short text";
const TARGET = "text.keep";
const WINDOW_MS = 5 * 60_000;

type Core = Awaited<ReturnType<typeof makeCore>>;

describe("learning from use", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function core(options: Parameters<typeof makeCore>[1] = {}): Promise<Core> {
    const made = await makeCore(skills, options);
    cleanups.push(made.cleanup);
    return made;
  }

  /** Two cores on one SQLite file, as two processes; their own cleanups must keep the directory. */
  async function twoProcesses(): Promise<{ first: Core; second: Core; clock: ManualClock }> {
    const dir = await mkdtemp(join(tmpdir(), "skillport-learning-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const first = await makeCore(skills, { store: "sqlite", dir, clock });
    const second = await makeCore(skills, { store: "sqlite", dir, clock });
    cleanups.push(async () => {
      for (const c of [second, first]) {
        await c.skillport.stop(1000);
        await c.skillport.close();
      }
    });
    return { first, second, clock };
  }

  const discover = (c: Core, key: ApiKey, query: string, limit = 10) =>
    c.skillport.catalog.discover({ query, limit }, key);
  const run = (c: Core, key: ApiKey, skillId: string) =>
    c.skillport.executions.execute(key, {
      skill_id: skillId,
      params: { text: "x" },
      async: false,
      timeout_ms: 5000,
    });
  const ids = async (c: Core, key: ApiKey, query: string) =>
    (await discover(c, key, query)).results.map((r) => r.skill_id);
  /** The owner's learned pairs as "query → skill ×count", sorted. */
  const pairs = async (c: Core, owner: string) =>
    (await c.skillport.store.learnedQueries.list(owner, 10))
      .map((learned) => `${learned.query} → ${learned.skillId} ×${learned.count}`)
      .sort();

  it("ranks a skill higher for its owner after a discover then an execution of it, and only for that owner", async () => {
    const c = await core();
    const alice = await c.keyFor({ owner: "alice" });
    const aliceOther = await c.keyFor({ owner: "alice" });
    const bob = await c.keyFor({ owner: "bob" });
    const before = await discover(c, bob, SIMILAR);
    const offered = await ids(c, alice, QUERY);
    expect(offered[0]).not.toBe(TARGET);
    expect(offered).toContain(TARGET);

    await run(c, alice, TARGET);
    const after = await discover(c, alice, SIMILAR);
    expect(after.results[0]?.skill_id).toBe(TARGET);
    expect(after.results[0]?.match.usage).toMatchObject({ query: QUERY, count: 1 });
    expect(after.results[0]?.match.usage?.lexical).toBeGreaterThan(0);
    // Evidence belongs to the owner: another key of alice's has it, bob's ranking is unchanged.
    expect((await ids(c, aliceOther, SIMILAR))[0]).toBe(TARGET);
    const bobAfter = await discover(c, bob, SIMILAR);
    expect(bobAfter.results).toEqual(before.results);
    expect(bobAfter.results.some((result) => result.match.usage)).toBe(false);
    expect(await c.skillport.store.learnedQueries.list("bob", 10)).toEqual([]);
  });

  it("learns nothing from an execution after the window", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const c = await core({ clock });
    const alice = await c.keyFor({ owner: "alice" });
    await discover(c, alice, QUERY);
    clock.advance(WINDOW_MS + 1);
    await run(c, alice, TARGET);
    expect(await c.skillport.store.learnedQueries.list("alice", 10)).toEqual([]);
    expect((await ids(c, alice, SIMILAR))[0]).not.toBe(TARGET);
  });

  it("learns at the edge of the window", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const c = await core({ clock });
    const alice = await c.keyFor({ owner: "alice" });
    await discover(c, alice, QUERY);
    clock.advance(WINDOW_MS);
    await run(c, alice, TARGET);
    expect(await c.skillport.store.learnedQueries.list("alice", 10)).toMatchObject([
      { skillId: TARGET, query: QUERY },
    ]);
  });

  it("learns nothing from another key's discover, nor without a discover", async () => {
    const c = await core();
    const alice = await c.keyFor({ owner: "alice" });
    const aliceOther = await c.keyFor({ owner: "alice" });
    await run(c, alice, TARGET);
    await discover(c, aliceOther, QUERY);
    await run(c, alice, TARGET);
    expect(await c.skillport.store.learnedQueries.list("alice", 10)).toEqual([]);
  });

  it("learns a skill the discover did not offer: the agent found it some other way", async () => {
    const c = await core();
    const alice = await c.keyFor({ owner: "alice" });
    expect(await ids(c, alice, "count the words")).not.toContain(TARGET);
    await run(c, alice, TARGET);
    expect(await c.skillport.store.learnedQueries.list("alice", 10)).toMatchObject([
      { skillId: TARGET, query: "count the words", count: 1 },
    ]);
    // Now offered, for the owner's similar request, with the reason.
    const after = await discover(c, alice, "count all the words");
    expect(after.results.find((result) => result.skill_id === TARGET)?.match.usage?.query).toBe(
      "count the words",
    );
  });

  it("links what the discover offered and the first execution after it, never a later skill it did not offer", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const c = await core({ clock });
    const alice = await c.keyFor({ owner: "alice" });
    // The README's walkthrough: a discover, its offered skill run, then another skill for
    // another step of the agent's work.
    const [offered] = (await discover(c, alice, QUERY, 1)).results.map((r) => r.skill_id);
    expect(offered).toBe("text.store");
    await run(c, alice, "text.store");
    await run(c, alice, TARGET);
    await run(c, alice, "text.count");
    expect(await pairs(c, "alice")).toEqual([`${QUERY} → text.store ×1`]);

    // A discover that missed the skill: the first execution after it is learned whatever
    // its skill, the offered one after it too, a third skill not offered is not.
    clock.advance(1000);
    expect((await discover(c, alice, "count the words", 1)).results.map((r) => r.skill_id)).toEqual([
      "text.count",
    ]);
    await run(c, alice, TARGET);
    await run(c, alice, "text.count");
    await run(c, alice, "text.store");
    expect(await pairs(c, "alice")).toEqual([
      "count the words → text.count ×1",
      `count the words → ${TARGET} ×1`,
      `${QUERY} → text.store ×1`,
    ]);

    // A new discover (even of the same query) has a first execution of its own.
    clock.advance(1000);
    await discover(c, alice, QUERY, 1);
    await run(c, alice, TARGET);
    await run(c, alice, "text.count");
    expect(await pairs(c, "alice")).toEqual([
      "count the words → text.count ×1",
      `count the words → ${TARGET} ×1`,
      `${QUERY} → ${TARGET} ×1`,
      `${QUERY} → text.store ×1`,
    ]);
  });

  // Regression (audit 22, discovery #3): every skill of a 10-result answer counted as offered,
  // so an agent's later step, run after the right skill, was learned beside it.
  it("counts as offered only the first results of an answer, not a later step further down", async () => {
    const more = [
      textSkill("text.shout", "Shout text", "Shouts a text."),
      textSkill("text.trim", "Trim text", "Trims a text."),
    ];
    const c = await makeCore([...skills, ...more], { clock: new ManualClock(Date.UTC(2026, 10, 22, 12)) });
    cleanups.push(c.cleanup);
    const alice = await c.keyFor({ owner: "alice" });
    const answer = (await discover(c, alice, QUERY)).results.map((r) => r.skill_id);
    expect(answer.length).toBeGreaterThanOrEqual(4);
    const [first, second, , fourth] = answer;
    for (const skillId of [first, fourth, second]) await run(c, alice, skillId ?? "");
    expect(await pairs(c, "alice")).toEqual([`${QUERY} → ${first} ×1`, `${QUERY} → ${second} ×1`].sort());
  });

  it("claims a discover's first execution in the store once per process, not on every execution", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const c = await core({ clock });
    const claims = vi.spyOn(c.skillport.store.learnedQueries, "claimFirstExecution");
    const alice = await c.keyFor({ owner: "alice" });
    await discover(c, alice, QUERY, 1);
    for (const skillId of [TARGET, "text.count", "text.store", TARGET, "text.store"])
      await run(c, alice, skillId);
    expect(claims).toHaveBeenCalledTimes(1);
    clock.advance(1000);
    await discover(c, alice, QUERY, 1);
    await run(c, alice, "text.count");
    await run(c, alice, TARGET);
    expect(claims).toHaveBeenCalledTimes(2);
    // The first discover: text.keep (first) and text.store (offered); the second: text.count (first).
    expect(await pairs(c, "alice")).toEqual([
      `${QUERY} → text.count ×1`,
      `${QUERY} → ${TARGET} ×1`,
      `${QUERY} → text.store ×1`,
    ]);
  });

  it("counts one discover once, however often the skill runs after it, writing it once", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const c = await core({ clock });
    const writes = vi.spyOn(c.skillport.store.learnedQueries, "record");
    const alice = await c.keyFor({ owner: "alice" });
    await discover(c, alice, QUERY);
    for (let i = 0; i < 5; i++) await run(c, alice, TARGET);
    expect((await c.skillport.store.learnedQueries.list("alice", 10))[0]?.count).toBe(1);
    // An agent running the skill again and again after one discover costs one write, not one each.
    expect(writes).toHaveBeenCalledTimes(1);
    await run(c, alice, "text.count"); // another skill after the same discover counts too
    expect(writes).toHaveBeenCalledTimes(2);
    clock.advance(1000);
    await discover(c, alice, QUERY);
    await run(c, alice, TARGET);
    expect(writes).toHaveBeenCalledTimes(3);
    const counts = await c.skillport.store.learnedQueries.list("alice", 10);
    expect(counts.find((learned) => learned.skillId === TARGET)?.count).toBe(2);
  });

  it("learns and uses nothing when turned off", async () => {
    const c = await core({ learnWindowMs: 0 });
    expect(c.skillport.learning).toBeUndefined();
    const alice = await c.keyFor({ owner: "alice" });
    await discover(c, alice, QUERY);
    await run(c, alice, TARGET);
    expect(await c.skillport.store.learnedQueries.lastDiscover(alice.id)).toBeUndefined();
    expect(await c.skillport.store.learnedQueries.list("alice", 10)).toEqual([]);
  });

  it("links a discover answered by one process to an execution in another, and the first sees it within a minute", async () => {
    const { first, second, clock } = await twoProcesses();
    const alice = await first.keyFor({ owner: "alice" });
    expect((await ids(first, alice, QUERY))[0]).not.toBe(TARGET);
    await run(second, alice, TARGET);
    expect(await second.skillport.store.learnedQueries.list("alice", 10)).toMatchObject([
      { skillId: TARGET },
    ]);
    // The first process read alice's (empty) evidence before; it re-reads it in the
    // background once half a minute old, and the next answer has it.
    expect((await ids(first, alice, SIMILAR))[0]).not.toBe(TARGET);
    clock.advance(30_000);
    expect((await ids(first, alice, SIMILAR))[0]).not.toBe(TARGET);
    await first.skillport.learning?.idle();
    expect((await ids(first, alice, SIMILAR))[0]).toBe(TARGET);
  });

  it("never answers from evidence more than a minute old: an owner who searches rarely waits for the re-read", async () => {
    const { first, second, clock } = await twoProcesses();
    const alice = await first.keyFor({ owner: "alice" });
    expect((await ids(first, alice, QUERY))[0]).not.toBe(TARGET);
    await run(second, alice, TARGET);
    // No search for a minute and more: the first answer after it has the other process's learning.
    clock.advance(90_000);
    expect((await ids(first, alice, SIMILAR))[0]).toBe(TARGET);
  });

  it("links an execution sent at once to another process to the discover just answered, never to the one before", async () => {
    const { first, second, clock } = await twoProcesses();
    // Both ways round, as a balancer sends a client's requests to either replica.
    for (const [discovering, executing, owner] of [
      [first, second, "alice"],
      [second, first, "bob"],
    ] as const) {
      const key = await discovering.keyFor({ owner });
      await discover(discovering, key, "count the words");
      await run(executing, key, "text.count");
      expect(await pairs(first, owner)).toEqual(["count the words → text.count ×1"]);
      clock.advance(1000);
      // Linked to the previous discover, this was learned as (count the words → text.keep).
      await discover(discovering, key, QUERY);
      await run(executing, key, TARGET);
      expect(await pairs(first, owner)).toEqual([
        "count the words → text.count ×1",
        `${QUERY} → ${TARGET} ×1`,
      ]);
      clock.advance(1000);
    }
  });

  it("learns one first execution after a discover across processes: a later one in another process is not first", async () => {
    const { first, second, clock } = await twoProcesses();
    const alice = await first.keyFor({ owner: "alice" });
    // One after the other: the second process's execution came later.
    await discover(first, alice, QUERY, 1);
    await run(second, alice, TARGET);
    await run(first, alice, "text.count");
    expect(await pairs(first, "alice")).toEqual([`${QUERY} → ${TARGET} ×1`]);
    // At once, each process's first after the discover: exactly one is learned.
    clock.advance(1000);
    await discover(second, alice, "count the words", 1);
    await Promise.all([run(first, alice, TARGET), run(second, alice, "text.store")]);
    const learned = (await pairs(first, "alice")).filter((pair) => pair.startsWith("count the words"));
    expect(learned).toHaveLength(1);
  });

  it("an execution arriving during another's read of the key's discover waits for the next read, which a burst shares", async () => {
    const { first, second, clock } = await twoProcesses();
    const alice = await first.keyFor({ owner: "alice" });
    const learning = second.skillport.learning;
    if (!learning) throw new Error("learning is on by default");
    // A slow read (as over a network): it returns what the store held when it started.
    const store = second.skillport.store.learnedQueries;
    const readNow = store.lastDiscover.bind(store);
    const releases: (() => void)[] = [];
    const reads = vi.spyOn(store, "lastDiscover").mockImplementation(async (keyId) => {
      const note = await readNow(keyId);
      await new Promise<void>((resolve) => releases.push(resolve));
      return note;
    });

    await discover(first, alice, "count the words");
    clock.advance(1000);
    const early = learning.noteExecution(alice, "text.count");
    expect(reads).toHaveBeenCalledTimes(1);
    // The read has read the store (a turn after it was asked) and its answer is on its way.
    await vi.waitFor(() => expect(releases).toHaveLength(1));
    // A later discover, answered while that read is under way, then a burst of executions.
    await discover(first, alice, QUERY);
    const burst = Array.from({ length: 5 }, () => learning.noteExecution(alice, TARGET));
    expect(reads).toHaveBeenCalledTimes(1);
    // Releases the read under way once it has read (the store reads a turn after it is asked).
    const releaseRead = async () => {
      await vi.waitFor(() => expect(releases).toHaveLength(1));
      releases.shift()?.();
    };
    await releaseRead();
    await vi.waitFor(() => expect(reads).toHaveBeenCalledTimes(2));
    await releaseRead();
    await Promise.all([early, ...burst]);

    expect(reads).toHaveBeenCalledTimes(2);
    expect(await pairs(second, "alice")).toEqual([
      "count the words → text.count ×1",
      `${QUERY} → ${TARGET} ×1`,
    ]);
  });

  it("notes no discover whose query has no letter or digit: the key's latest real discover still links", async () => {
    const c = await core();
    const alice = await c.keyFor({ owner: "alice" });
    await discover(c, alice, QUERY);
    await discover(c, alice, " \n ");
    await discover(c, alice, "?!");
    await run(c, alice, TARGET);
    expect(await pairs(c, "alice")).toEqual([`${QUERY} → ${TARGET} ×1`]);
  });

  it("keeps a query holding a secret out of the store and of every key's answers, and links nothing to it", async () => {
    const c = await core();
    const alice = await c.keyFor({ owner: "alice" });
    const aliceReader = await c.keyFor({ owner: "alice", scope: "read-only" });
    const { secret } = await c.createKey({ owner: "alice" });
    const queries = [
      `${QUERY} with my key ${secret}`,
      `${QUERY} from https://api.example.com/v1/data?api_key=DISCSECRET123`,
      `${QUERY}, header Authorization: Bearer ghp_DISCTOKEN9`,
    ];
    for (const query of queries) {
      // A real discover before it: the execution must not link to it either.
      await discover(c, alice, "count the words");
      await discover(c, alice, query);
      const note = await c.skillport.store.learnedQueries.lastDiscover(alice.id);
      expect(note?.query).toBe("");
      await run(c, alice, TARGET);
    }
    expect(await pairs(c, "alice")).toEqual([]);
    const shown = JSON.stringify(await discover(c, aliceReader, SIMILAR));
    for (const part of [secret, "DISCSECRET123", "ghp_DISCTOKEN9"]) expect(shown).not.toContain(part);
  });

  it("never uses nor shows a query learned, or a note taken, with a secret in it before they were kept out", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const c = await core({ clock });
    const alice = await c.keyFor({ owner: "alice" });
    const aliceReader = await c.keyFor({ owner: "alice", scope: "read-only" });
    const { secret } = await c.createKey({ owner: "alice" });
    const store = c.skillport.store.learnedQueries;
    const at = clock.now();
    const caps = { perSkill: 200, perOwner: 10_000 };
    await store.record(
      { owner: "alice", query: `${QUERY} ${secret}`, skillId: TARGET, discoveredAt: at, at },
      caps,
    );
    await store.record({ owner: "alice", query: QUERY, skillId: "text.count", discoveredAt: at, at }, caps);
    const answer = await discover(c, aliceReader, SIMILAR);
    expect(JSON.stringify(answer)).not.toContain(secret);
    expect(answer.results.find((result) => result.skill_id === TARGET)?.match.usage).toBeUndefined();
    // The clean one is still evidence: the filter drops only what holds a secret.
    expect(answer.results.find((result) => result.skill_id === "text.count")?.match.usage).toMatchObject({
      query: QUERY,
    });

    await store.noteDiscovers([
      { keyId: alice.id, owner: "alice", query: `count words ${secret}`, at: clock.now(), offered: [TARGET] },
    ]);
    await run(c, alice, TARGET);
    expect((await store.list("alice", 10)).map((learned) => learned.query)).not.toContain(
      `count words ${secret}`,
    );
  });

  it("answers discovers while the store hangs on writing a note, and links the note once written", async () => {
    const c = await core({ clock: new ManualClock(Date.UTC(2026, 10, 22, 12)) });
    const alice = await c.keyFor({ owner: "alice" });
    const bob = await c.keyFor({ owner: "bob" });
    // A write held (a lock taken by the hourly prune, a PostgreSQL in trouble), then released.
    const store = c.skillport.store.learnedQueries;
    const write = store.noteDiscovers.bind(store);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const writes = vi.spyOn(store, "noteDiscovers").mockImplementationOnce(async (notes) => {
      await held;
      return write(notes);
    });

    // Both answer although the write they wait on never ends by itself (about a second each).
    expect((await discover(c, alice, QUERY)).results.length).toBeGreaterThan(0);
    expect((await discover(c, bob, "count the words")).results.length).toBeGreaterThan(0);
    release();
    await c.skillport.learning?.idle();
    expect(writes).toHaveBeenCalledTimes(2);
    await run(c, alice, TARGET);
    expect(await pairs(c, "alice")).toEqual([`${QUERY} → ${TARGET} ×1`]);
  });
});
