import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinSkills } from "../../skills/index.js";
import { toCatalogSkill } from "../../src/core/skills/registry.js";

describe("built-in skill catalog", () => {
  it("ships at least 17 skills, including the ones black-box tests rely on", () => {
    const ids = builtinSkills.map((skill) => skill.id);
    expect(ids.length).toBeGreaterThanOrEqual(17);
    for (const id of ["message.send", "message.list", "math.evaluate", "util.wait", "http.request"]) {
      expect(ids).toContain(id);
    }
  });

  it("gives every skill a unique dotted lower-case id", () => {
    const ids = builtinSkills.map((skill) => skill.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/);
  });

  describe.each(builtinSkills.map((skill) => [skill.id, skill] as const))("%s", (_id, skill) => {
    it("has a title, tags and a description of at least 40 characters", () => {
      expect(skill.title.length).toBeGreaterThan(0);
      expect(skill.description.length).toBeGreaterThanOrEqual(40);
      expect(skill.tags.length).toBeGreaterThan(0);
    });

    it("has at least two examples whose params its own schema accepts", () => {
      expect(skill.examples.length).toBeGreaterThanOrEqual(2);
      for (const example of skill.examples) {
        expect(example.query.length).toBeGreaterThan(0);
        const parsed = skill.params.safeParse(example.params);
        expect(parsed.success, `${example.query}: ${parsed.error?.message}`).toBe(true);
      }
    });

    it("describes every param and converts its schemas to JSON Schema", () => {
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
  });
});
