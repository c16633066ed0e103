import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { createDiscoveryIndex, type DiscoveryHit } from "../../src/core/discovery/index.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { UsageEvidence } from "../../src/core/discovery/usage-evidence.js";
import { builtinDiscoveries } from "./builtin-discoveries.js";

const tagsById = new Map(builtinSkills.map((skill) => [skill.id, new Set(skill.tags)]));

/** What a tag filter may do to an answer: drop the skills lacking a tag, nothing else. */
function narrowed(hits: readonly DiscoveryHit[], tags: readonly string[]): DiscoveryHit[] {
  return hits.filter((hit) => tags.every((tag) => tagsById.get(hit.skill_id)?.has(tag)));
}

// Queries and tags of the audit that found filtered answers reordered and rescored
// (z-normalisation and pseudo-relevance feedback over the filtered skills only).
const cases: { query: string; tags: string[] }[] = [
  { query: "time", tags: ["time"] },
  { query: "convert a value", tags: ["convert"] },
  { query: "how many days until the deadline", tags: ["date"] },
  { query: "hash a password", tags: ["time"] },
];

describe("hybrid discovery with a tag filter", () => {
  const discoveries = builtinDiscoveries();

  it("ranks and scores the skills passing the filter exactly as the unfiltered query does", async () => {
    for (const { query, tags } of cases) {
      const all = await discoveries.hybrid.search(query, { limit: 50 });
      expect(all.ranking.mode).toBe("hybrid");
      const filtered = await discoveries.hybrid.search(query, { limit: 50, tags });
      expect(filtered.hits.length).toBeGreaterThan(0);
      expect(filtered.hits, `${query} [${tags.join(", ")}]`).toEqual(narrowed(all.hits, tags));
    }
  });

  it("keeps learning from use out of it: the owner's past queries lift a skill by the same amount with or without the filter", async () => {
    const usage = new UsageEvidence(discoveries.model.dimensions, 10);
    const past = ["what is the date next friday", "current hour in tokyo"];
    const vectors = await discoveries.semantic.embedTexts(past);
    usage.add({ skillId: "time.add", query: past[0] ?? "", count: 2, lastAt: 1 }, vectors[0]);
    usage.add({ skillId: "time.now", query: past[1] ?? "", count: 1, lastAt: 2 }, vectors[1]);
    const query = "what time is it in tokyo on friday";
    const all = await discoveries.hybrid.search(query, { limit: 50, usage });
    expect(all.hits.some((hit) => hit.match.usage)).toBe(true);
    const filtered = await discoveries.hybrid.search(query, { limit: 50, tags: ["time"], usage });
    expect(filtered.hits).toEqual(narrowed(all.hits, ["time"]));
  });
});

/** Bag of words hashed into a unit vector: texts sharing words are near, others orthogonal-ish. */
class HashingEmbedder implements TextEmbedder {
  readonly modelId = "test-hashing";
  readonly dimensions = 64;
  loaded = false;
  async load() {
    this.loaded = true;
  }
  async embed(texts: readonly string[]) {
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let hash = 7;
        for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_003;
        vector[hash % this.dimensions] = (vector[hash % this.dimensions] ?? 0) + 1;
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  }
  async close() {}
}

describe("hybrid discovery with a filter, past the fused candidates of a large catalog", () => {
  // 150 skills about alpha fill the 100 candidates each retriever brings to fusion.
  const records = [
    ...Array.from({ length: 150 }, (_, n) => ({
      id: `alpha.${String(n).padStart(3, "0")}`,
      description: `Alpha work, variant ${"x".repeat(1 + (n % 7))}${n % 3 === 0 ? " with more alpha" : ""}.`,
      tags: n % 2 === 0 ? ["even"] : ["odd"],
    })),
    ...["one", "two", "three"].map((n) => ({
      id: `zeta.${n}`,
      description: `Zeta job ${n}.`,
      tags: ["rare"],
    })),
  ];

  it("keeps the scores of the skills an unfiltered query ranks, and still answers with a narrow filter's skills it does not", async () => {
    const semantic = new SemanticIndex(new HashingEmbedder(), undefined);
    const index = createDiscoveryIndex(records, { semantic });
    await semantic.start();
    await semantic.idle();
    const all = await index.search("alpha work", { limit: 50 });
    expect(all.ranking.mode).toBe("hybrid");
    expect(all.hits.some((hit) => hit.skill_id.startsWith("zeta"))).toBe(false);
    const rare = await index.search("alpha work", { limit: 50, tags: ["rare"] });
    expect(rare.hits.map((hit) => hit.skill_id).sort()).toEqual(["zeta.one", "zeta.three", "zeta.two"]);
    // The skills both answers hold keep their score and order (a limit of 100 leaves the
    // candidates as they are at 50).
    const wide = await index.search("alpha work", { limit: 100 });
    const even = await index.search("alpha work", { limit: 100, tags: ["even"] });
    const shown = new Set(wide.hits.map((hit) => hit.skill_id));
    const common = even.hits.filter((hit) => shown.has(hit.skill_id));
    expect(common.length).toBeGreaterThan(10);
    expect(common).toEqual(wide.hits.filter((hit) => common.some((kept) => kept.skill_id === hit.skill_id)));
  });
});
