import { describe, expect, it, vi } from "vitest";
import { Bm25fRetriever } from "../../src/core/discovery/bm25f.js";
import { createDiscoveryIndex } from "../../src/core/discovery/discovery-index.js";
import { UsageEvidence } from "../../src/core/discovery/usage-evidence.js";

const learned = (skillId: string, query: string, lastAt: number, count = 1) => ({
  skillId,
  query,
  count,
  lastAt,
});
const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((value) => value / norm));
};

const records = [
  { id: "files.write", name: "Write a file", description: "Writes text to a file on disk." },
  { id: "notes.keep", name: "Keep a note", description: "Keeps a short note." },
  { id: "weather.now", name: "Weather now", description: "Current weather for a city." },
];

describe("usage evidence (one owner's learned queries)", () => {
  it("finds the past query sharing the query's words, with its count, as lexical evidence", () => {
    const evidence = new UsageEvidence(undefined, 10);
    evidence.add(learned("notes.keep", "jot down my shopping list", 1, 3));
    evidence.add(learned("notes.keep", "remember the plumber's number", 2));
    evidence.add(learned("weather.now", "is it raining in paris", 3));
    const signals = evidence.signals("jot down the list");
    expect([...signals.keys()]).toEqual(["notes.keep"]);
    const signal = signals.get("notes.keep");
    expect(signal?.lexical).toBeGreaterThan(0);
    expect(signal?.semantic).toBeUndefined();
    expect(signal && evidence.pastQueryFor("notes.keep", "jot down the list", signal)).toEqual({
      query: "jot down my shopping list",
      count: 3,
    });
    expect(evidence.signals("send an email").size).toBe(0);
  });

  it("keeps at most the cap of queries per skill, dropping the least recently executed", () => {
    const evidence = new UsageEvidence(undefined, 2);
    evidence.add(learned("notes.keep", "alpha note", 1));
    evidence.add(learned("notes.keep", "beta note", 2));
    evidence.add(learned("notes.keep", "gamma note", 3));
    expect(evidence.size).toBe(2);
    expect(evidence.countOf("notes.keep", "alpha note")).toBe(0);
    expect(evidence.signals("alpha").size).toBe(0);
    // A newer execution of a kept query updates it in place.
    evidence.add(learned("notes.keep", "beta note", 4, 2));
    evidence.add(learned("notes.keep", "delta note", 5));
    expect(evidence.size).toBe(2);
    expect(evidence.countOf("notes.keep", "beta note")).toBe(2);
    expect(evidence.countOf("notes.keep", "gamma note")).toBe(0);
  });

  it("gives the nearest past query's cosine per skill, honouring the filter", () => {
    const evidence = new UsageEvidence(3, 10);
    evidence.add(learned("notes.keep", "first", 1), unit(1, 0, 0));
    evidence.add(learned("notes.keep", "second", 2), unit(1, 1, 0));
    evidence.add(learned("weather.now", "third", 3), unit(0, 0, 1));
    expect(evidence.complete).toBe(true);
    const signals = evidence.signals("unrelated words", unit(1, 0.2, 0));
    expect(signals.get("notes.keep")?.nearest).toEqual({ query: "first", count: 1 });
    expect(signals.get("notes.keep")?.semantic).toBeCloseTo(1 / Math.hypot(1, 0.2), 5);
    expect(signals.get("weather.now")?.semantic).toBeCloseTo(0, 5);
    const filtered = evidence.signals("unrelated words", unit(1, 0.2, 0), (id) => id === "weather.now");
    expect([...filtered.keys()]).toEqual(["weather.now"]);
    // A query without a vector makes the evidence incomplete (re-read once the model is ready).
    evidence.add(learned("weather.now", "fourth", 4));
    expect(evidence.complete).toBe(false);
  });

  describe("an owner's learned queries given at once (replaceAll, as read from the store)", () => {
    const skills = ["notes.keep", "weather.now", "files.write"];
    const words = ["jot", "rain", "save", "list", "paris", "disk", "note", "sunny", "draft", "number"];
    // Oldest first; five queries per skill, over a cap of three.
    const all = Array.from({ length: 15 }, (_, index) =>
      learned(
        skills[index % 3] ?? "",
        `${words[index % 10]} ${words[(index * 7) % 10]} ${index}`,
        index,
        1 + (index % 4),
      ),
    );
    const vectors = all.map((_, index) => unit(1 + index, index % 5, 3));

    it("holds what adding them one by one holds: the same caps, counts and evidence", () => {
      const oneByOne = new UsageEvidence(3, 3);
      for (const [index, entry] of all.entries()) oneByOne.add(entry, vectors[index]);
      const atOnce = new UsageEvidence(3, 3);
      atOnce.replaceAll(all, vectors);
      expect(atOnce.size).toBe(9);
      expect(atOnce.size).toBe(oneByOne.size);
      for (const entry of all) {
        expect(atOnce.countOf(entry.skillId, entry.query)).toBe(oneByOne.countOf(entry.skillId, entry.query));
      }
      for (const query of ["jot rain", "paris disk 13", "sunny"]) {
        const vector = unit(2, 1, 3);
        expect(oneByOne.signals(query, vector).size).toBeGreaterThan(0);
        expect(atOnce.signals(query, vector)).toEqual(oneByOne.signals(query, vector));
      }
    });

    it("indexes each skill's queries once, not once per query", () => {
      const indexed = vi.spyOn(Bm25fRetriever.prototype, "add");
      try {
        new UsageEvidence(3, 200).replaceAll(all, vectors);
        expect(indexed).toHaveBeenCalledTimes(skills.length);
      } finally {
        indexed.mockRestore();
      }
    });

    // What a refresh does: the store's rows again, some changed.
    const changed = [
      ...all.filter((entry) => entry.skillId !== "weather.now" && entry.query !== all[0]?.query),
      learned("files.write", "a query learned since", 20),
      learned("notes.keep", all[1]?.query ?? "", 21, 9),
    ].filter(
      (entry, index, rows) =>
        rows.findIndex((other) => other.query === entry.query && other.skillId === entry.skillId) === index,
    );
    const changedVectors = changed.map(
      (entry) => vectors[all.findIndex((e) => e.query === entry.query)] ?? unit(0, 1, 1),
    );

    it("holds after a second call what a new evidence given those rows holds", () => {
      for (const perSkill of [3, 200]) {
        const refreshed = new UsageEvidence(3, perSkill);
        refreshed.replaceAll(all, vectors);
        refreshed.replaceAll(changed, changedVectors);
        const fresh = new UsageEvidence(3, perSkill);
        fresh.replaceAll(changed, changedVectors);
        expect(refreshed.size).toBe(fresh.size);
        expect(refreshed.complete).toBe(true);
        for (const entry of [...all, ...changed]) {
          expect(refreshed.countOf(entry.skillId, entry.query)).toBe(
            fresh.countOf(entry.skillId, entry.query),
          );
        }
        for (const query of ["jot rain", "paris disk 13", "sunny", "a query learned"]) {
          const vector = unit(2, 1, 3);
          const expected = fresh.signals(query, vector);
          const got = refreshed.signals(query, vector);
          expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
          for (const [skillId, signal] of expected) {
            expect(got.get(skillId)?.lexical).toBeCloseTo(signal.lexical, 12);
            expect(got.get(skillId)?.semantic).toBeCloseTo(signal.semantic ?? 0, 12);
            expect(got.get(skillId)?.nearest).toEqual(signal.nearest);
          }
        }
        expect(refreshed.signals("rain sunny", unit(0, 0, 1)).has("weather.now")).toBe(false);
      }
    });

    it("re-indexes only the skills whose queries changed", () => {
      const evidence = new UsageEvidence(3, 200);
      evidence.replaceAll(all, vectors);
      const indexed = vi.spyOn(Bm25fRetriever.prototype, "add");
      try {
        // Counts and times changed, queries not: nothing to index.
        evidence.replaceAll(
          all.map((entry) => ({ ...entry, count: entry.count + 1, lastAt: entry.lastAt + 100 })),
          vectors,
        );
        expect(indexed).not.toHaveBeenCalled();
        expect(evidence.countOf(all[0]?.skillId ?? "", all[0]?.query ?? "")).toBe((all[0]?.count ?? 0) + 1);
        // One query more for one skill: that skill alone.
        evidence.replaceAll(
          [...all, learned("files.write", "a query learned since", 20)],
          [...vectors, unit(1, 1, 1)],
        );
        expect(indexed.mock.calls.map(([document]) => document.id)).toEqual(["files.write"]);
      } finally {
        indexed.mockRestore();
      }
    });
  });

  it("lifts a skill in lexical ranking and says why in match.usage; without evidence nothing changes", async () => {
    const index = createDiscoveryIndex(records);
    const query = "write down a short text";
    const plain = await index.search(query);
    expect(plain.hits[0]?.skill_id).toBe("files.write");
    expect(plain.hits.some((hit) => hit.match.usage)).toBe(false);
    const evidence = new UsageEvidence(undefined, 10);
    evidence.add(learned("notes.keep", "write down a short text for later", 1));
    const lifted = await index.search(query, { usage: evidence });
    expect(lifted.hits[0]?.skill_id).toBe("notes.keep");
    expect(lifted.hits[0]?.match.usage).toMatchObject({
      query: "write down a short text for later",
      count: 1,
    });
    expect(lifted.hits[0]?.score).toBeLessThanOrEqual(1);
    // The skill's own evidence is unchanged; the other hits keep theirs and have no usage.
    const own = plain.hits.find((hit) => hit.skill_id === "notes.keep");
    expect(lifted.hits[0]?.match.lexical).toBe(own?.match.lexical);
    expect(lifted.hits.filter((hit) => hit.match.usage).map((hit) => hit.skill_id)).toEqual(["notes.keep"]);
    // The tags filter and removed skills hold against usage evidence too.
    expect((await index.search(query, { usage: evidence, tags: ["none"] })).hits).toEqual([]);
    index.remove("notes.keep");
    expect((await index.search(query, { usage: evidence })).hits.map((hit) => hit.skill_id)).not.toContain(
      "notes.keep",
    );
  });
});
