import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { createDiscovery } from "../../src/core/discovery/index.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { OBVIOUS_QUERIES } from "./obvious-queries.js";

describe("discovery of the built-in skills", () => {
  const discovery = createDiscovery(new SkillRegistry(builtinSkills));

  it("has an obvious query for every built-in skill", () => {
    expect(Object.keys(OBVIOUS_QUERIES).sort()).toEqual(builtinSkills.map((s) => s.id).sort());
  });

  for (const [skillId, queries] of Object.entries(OBVIOUS_QUERIES)) {
    for (const query of queries) {
      it(`ranks ${skillId} first for "${query}"`, async () => {
        expect((await discovery.search(query, { limit: 3 })).hits.map((hit) => hit.skill_id)[0]).toBe(
          skillId,
        );
      });
    }
  }
});
