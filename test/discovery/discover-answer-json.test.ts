import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import type { DiscoverResponse, SkillSummary } from "../../src/core/answer-schemas.js";
import { CatalogService } from "../../src/core/catalog-service.js";
import { discoverAnswerJson } from "../../src/core/discover-answer-json.js";
import { createDiscovery } from "../../src/core/discovery/registry-discovery.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";

function builtinCatalog() {
  const registry = new SkillRegistry(builtinSkills);
  return new CatalogService(registry, createDiscovery(registry));
}

// A discover answer's JSON is written from each skill summary's kept JSON (a fifth of a
// discover's CPU was serialising the same params schemas again); the text must be the
// very one `JSON.stringify` writes, whatever the answer holds.
describe("a discover answer as JSON text", () => {
  it("is what JSON.stringify writes, for answers of the built-in catalog", async () => {
    const catalog = builtinCatalog();
    const queries = [
      "send a message to a channel",
      "evaluate 2+2",
      "convert 5 km to miles",
      "time in Tokyo",
      "zzzz",
      "hash sha256 of text",
    ];
    for (const query of queries) {
      for (const limit of [1, 3, 50]) {
        const answer = await catalog.discover({ query, limit });
        expect(catalog.answerJson(answer), `${query} (${limit})`).toBe(JSON.stringify(answer));
      }
    }
  });

  it("writes the kept summary only when a result starts with that very summary", () => {
    const summary: SkillSummary = {
      skill_id: "a.b",
      name: "A",
      description: "d",
      tags: ["t"],
      params: { type: "object" },
    };
    const answerWith = (result: Record<string, unknown>): DiscoverResponse =>
      ({
        query: "q",
        results: [result],
        took_ms: 1,
        ranking: { mode: "lexical" },
      }) as unknown as DiscoverResponse;
    const cases: Record<string, unknown>[] = [
      { ...summary, score: 0.5, match: { terms: ["x"] } },
      // The catalog's summary has changed since (another params object, equal or not).
      { ...summary, params: { type: "object" }, score: 0.5, match: {} },
      { ...summary, params: { type: "string" }, score: 0.5, match: {} },
      { ...summary, description: "another", score: 0.5, match: {} },
      // Its members in another order, missing, or with ones JSON leaves out.
      {
        name: "A",
        skill_id: "a.b",
        description: "d",
        tags: ["t"],
        params: summary.params,
        score: 1,
        match: {},
      },
      { skill_id: "a.b", name: "A", score: 1 },
      { ...summary, score: undefined, match: () => {}, extra: null },
      { skill_id: "other", name: "A", score: 1 },
    ];
    for (const result of cases) {
      const answer = answerWith(result);
      const json = discoverAnswerJson(answer, (id) => (id === "a.b" ? summary : undefined));
      expect(json).toBe(JSON.stringify(answer));
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(answer)));
    }
  });

  it("is what JSON.stringify writes for any answer and any catalog", () => {
    const json = fc.jsonValue();
    const summary = fc.record({
      skill_id: fc.constantFrom("a", "b"),
      name: fc.string(),
      description: fc.string(),
      tags: fc.array(fc.string()),
      params: fc.dictionary(fc.string(), json),
    });
    fc.assert(
      fc.property(
        fc.array(summary, { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(3), fc.dictionary(fc.string(), json))),
        fc.string(),
        (summaries, picks, query) => {
          const catalog = new Map(summaries.map((s) => [s.skill_id, s as SkillSummary]));
          const results = picks.map(([i, own]) => {
            const base = summaries[i % Math.max(1, summaries.length)];
            return base ? { ...base, ...own } : own;
          });
          const answer = {
            query,
            results,
            took_ms: 0.5,
            ranking: { mode: "lexical" },
          } as unknown as DiscoverResponse;
          expect(discoverAnswerJson(answer, (id) => catalog.get(id as "a" | "b"))).toBe(
            JSON.stringify(answer),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
