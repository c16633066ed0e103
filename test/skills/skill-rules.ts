import { expect, it } from "vitest";
import { z } from "zod";
import { toCatalogSkill } from "../../src/core/skills/registry.js";
import type { Skill } from "../../src/core/skills/skill.js";
import { metadataWarnings } from "../../src/core/skills/skill-metadata.js";

/**
 * What every skill must have for agents to find and call it: the built-ins are held to
 * it, and so is the README's example of writing one.
 */
export function describeSkillRules(skill: Skill): void {
  it("has a title and nothing start-up warns of (tags, description, examples, described params)", () => {
    expect(skill.title.length).toBeGreaterThan(0);
    // The same rules as start-up's warnings, so the two cannot drift apart.
    expect(metadataWarnings(skill)).toEqual([]);
  });

  it("has examples whose params its own schema accepts, naming no member it does not take", () => {
    for (const example of skill.examples) {
      expect(example.query.length).toBeGreaterThan(0);
      const parsed = toCatalogSkill(skill).params.safeParse(example.params);
      expect(parsed.success, `${example.query}: ${parsed.error?.message}`).toBe(true);
    }
  });

  it("marks its credentials (toCatalogSkill checks) and converts its params to an object JSON Schema", () => {
    expect(() => toCatalogSkill(skill)).not.toThrow();
    expect(z.toJSONSchema(skill.params, { io: "input" })).toMatchObject({ type: "object" });
  });

  it("has consistent annotations", () => {
    const { readOnly, destructive } = skill.annotations;
    // The MCP meaning: destructive only makes sense for a skill that writes.
    if (readOnly) expect(destructive).toBe(false);
  });
}
