import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { UsageEvidence } from "../../src/core/discovery/usage-evidence.js";
import { toolNameOf } from "../../src/mcp/tool-names.js";
import { builtinDiscoveries } from "./builtin-discoveries.js";

/** How an agent that knows a skill may name it: the id, its MCP tool name, the id's words, shouted. */
function spellings(id: string): string[] {
  return [id, toolNameOf(id), id.replace(/[._]/g, " "), id.toUpperCase()];
}

// Audit 22, discovery #2: in hybrid mode a bare id embeds as noise, and its low cosine
// outweighed the only lexical match: "util.wait" put util.wait 7th, "memory.set" put
// memory.get first, "text_stats" missed text.stats.
describe("a query that names a skill", () => {
  const discoveries = builtinDiscoveries();

  it("ranks that skill first, with score 1, in hybrid mode, for its id, its tool name and its words", async () => {
    const misses: string[] = [];
    for (const { id } of builtinSkills) {
      for (const query of spellings(id)) {
        const { hits, ranking } = await discoveries.hybrid.search(query, { limit: 1 });
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
        const { hits } = await discoveries.lexical.search(query, { limit: 1 });
        expect(hits[0]?.skill_id, query).toBe(id);
        expect(hits[0]?.match.named, query).toBe(true);
      }
    }
  });

  it("keeps the rest of the answer ranked as before, scores below 1, and marks no other skill", async () => {
    const { hits } = await discoveries.hybrid.search("util.wait", { limit: 10 });
    expect(hits.map((hit) => hit.skill_id)[0]).toBe("util.wait");
    expect(hits).toHaveLength(10);
    for (const hit of hits.slice(1)) {
      expect(hit.score).toBeLessThan(1);
      expect(hit.match.named).toBeUndefined();
    }
  });

  it("outranks an owner's learned queries that lift another skill", async () => {
    const usage = new UsageEvidence(discoveries.model.dimensions, 10);
    const [vector] = await discoveries.semantic.embedTexts(["memory.set"]);
    usage.add({ skillId: "memory.get", query: "memory.set", count: 50, lastAt: 0 }, vector);
    const { hits } = await discoveries.hybrid.search("memory.set", { limit: 3, usage });
    expect(hits[0]?.skill_id).toBe("memory.set");
    expect(hits[1]?.skill_id).toBe("memory.get");
    expect(hits[1]?.match.usage).toBeDefined();
  });

  it("respects a tag filter: a named skill the filter excludes is not shown", async () => {
    expect(
      (await discoveries.hybrid.search("util.wait", { limit: 3, tags: ["time"] })).hits[0]?.match.named,
    ).toBeUndefined();
    expect(
      (await discoveries.hybrid.search("time.now", { limit: 3, tags: ["time"] })).hits[0]?.skill_id,
    ).toBe("time.now");
  });

  it("does not treat a sentence that contains an id as naming it", async () => {
    const { hits } = await discoveries.hybrid.search("wait for util.wait to finish then send a message", {
      limit: 3,
    });
    for (const hit of hits) expect(hit.match.named).toBeUndefined();
  });
});
