import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { createDiscovery, type Discovery } from "../../src/core/discovery/registry-discovery.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { UsageEvidence } from "../../src/core/discovery/usage-evidence.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { UseLiteEmbedder } from "../../src/embeddings/use-lite-embedder.js";
import { toolNameOf } from "../../src/mcp/tool-names.js";

/** How an agent that knows a skill may name it: the id, its MCP tool name, the id's words, shouted. */
function spellings(id: string): string[] {
  return [id, toolNameOf(id), id.replace(/[._]/g, " "), id.toUpperCase()];
}

// Audit 22, discovery #2: in hybrid mode a bare id embeds as noise, and its low cosine
// outweighed the only lexical match: "util.wait" put util.wait 7th, "memory.set" put
// memory.get first, "text_stats" missed text.stats.
describe("a query that names a skill", () => {
  const model = new UseLiteEmbedder();
  let semantic: SemanticIndex;
  let hybrid: Discovery;
  const lexical = createDiscovery(new SkillRegistry(builtinSkills));

  beforeAll(async () => {
    semantic = new SemanticIndex(model, undefined);
    hybrid = createDiscovery(new SkillRegistry(builtinSkills), { semantic });
    await hybrid.start();
    await semantic.idle();
  }, 120_000);
  afterAll(async () => {
    hybrid.close();
    lexical.close();
    await model.close();
  });

  it("ranks that skill first, with score 1, in hybrid mode, for its id, its tool name and its words", async () => {
    const misses: string[] = [];
    for (const { id } of builtinSkills) {
      for (const query of spellings(id)) {
        const { hits, ranking } = await hybrid.search(query, { limit: 1 });
        expect(ranking.mode).toBe("hybrid");
        if (hits[0]?.skill_id !== id || hits[0].score !== 1 || hits[0].match.named !== true) {
          misses.push(`"${query}": ${hits[0]?.skill_id} (${hits[0]?.score})`);
        }
      }
    }
    expect(misses).toEqual([]);
  });

  it("ranks that skill first in lexical mode too", async () => {
    for (const { id } of builtinSkills) {
      for (const query of spellings(id)) {
        const { hits } = await lexical.search(query, { limit: 1 });
        expect(hits[0]?.skill_id, query).toBe(id);
        expect(hits[0]?.match.named, query).toBe(true);
      }
    }
  });

  it("keeps the rest of the answer ranked as before, scores below 1, and marks no other skill", async () => {
    const { hits } = await hybrid.search("util.wait", { limit: 10 });
    expect(hits.map((hit) => hit.skill_id)[0]).toBe("util.wait");
    expect(hits).toHaveLength(10);
    for (const hit of hits.slice(1)) {
      expect(hit.score).toBeLessThan(1);
      expect(hit.match.named).toBeUndefined();
    }
  });

  it("outranks an owner's learned queries that lift another skill", async () => {
    const usage = new UsageEvidence(model.dimensions, 10);
    const [vector] = await semantic.embedTexts(["memory.set"]);
    usage.add({ skillId: "memory.get", query: "memory.set", count: 50, lastAt: 0 }, vector);
    const { hits } = await hybrid.search("memory.set", { limit: 3, usage });
    expect(hits[0]?.skill_id).toBe("memory.set");
    expect(hits[1]?.skill_id).toBe("memory.get");
    expect(hits[1]?.match.usage).toBeDefined();
  });

  it("respects a tag filter: a named skill the filter excludes is not shown", async () => {
    expect(
      (await hybrid.search("util.wait", { limit: 3, tags: ["time"] })).hits[0]?.match.named,
    ).toBeUndefined();
    expect((await hybrid.search("time.now", { limit: 3, tags: ["time"] })).hits[0]?.skill_id).toBe(
      "time.now",
    );
  });

  it("does not treat a sentence that contains an id as naming it", async () => {
    const { hits } = await hybrid.search("wait for util.wait to finish then send a message", { limit: 3 });
    for (const hit of hits) expect(hit.match.named).toBeUndefined();
  });
});
