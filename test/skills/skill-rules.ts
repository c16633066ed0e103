import { expect, it } from "vitest";
import { z } from "zod";
import { toCatalogSkill } from "../../src/core/skills/registry.js";
import type { Skill } from "../../src/core/skills/skill.js";

/**
 * What every skill must have for agents to find and call it: the built-ins are held to
 * it, and so is the README's example of writing one.
 */
export function describeSkillRules(skill: Skill): void {
  it("has a title, tags and a description of at least 40 characters", () => {
    expect(skill.title.length).toBeGreaterThan(0);
    expect(skill.description.length).toBeGreaterThanOrEqual(40);
    expect(skill.tags.length).toBeGreaterThan(0);
  });

  it("has at least two examples whose params its own schema accepts, naming no member it does not take", () => {
    expect(skill.examples.length).toBeGreaterThanOrEqual(2);
    for (const example of skill.examples) {
      expect(example.query.length).toBeGreaterThan(0);
      const parsed = toCatalogSkill(skill).params.safeParse(example.params);
      expect(parsed.success, `${example.query}: ${parsed.error?.message}`).toBe(true);
    }
  });

  it("describes every param, marks its credentials (toCatalogSkill checks) and converts its schemas to JSON Schema", () => {
    const schema = z.toJSONSchema(skill.params, { io: "input" }) as {
      type: string;
      properties?: Record<string, { description?: string }>;
    };
    expect(schema.type).toBe("object");
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      expect(property.description, `param ${name}`).toBeTruthy();
    }
    expect(() => toCatalogSkill(skill)).not.toThrow();
  });

  it("has consistent annotations", () => {
    const { readOnly, destructive } = skill.annotations;
    // The MCP meaning: destructive only makes sense for a skill that writes.
    if (readOnly) expect(destructive).toBe(false);
  });
}
