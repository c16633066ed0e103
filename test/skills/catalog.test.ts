import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { loadConfig } from "../../src/config.js";
import { type JsonSchema, toCatalogSkill } from "../../src/core/skills/registry.js";
import { describeSkillRules } from "./skill-rules.js";

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

  // Regression (audit 22, skills F16): csv.to_json advertised 5,000,000 characters and
  // crypto.hash and encoding.convert 10,000,000, which a default server refuses with 413;
  // agents size their input from these figures.
  it("advertises no text param longer than a request within the default body limit carries", () => {
    const bodyLimitBytes = loadConfig({}).maxBodyBytes;
    for (const skill of builtinSkills) {
      const properties = toCatalogSkill(skill).paramsSchema.properties as Record<string, JsonSchema>;
      for (const [name, property] of Object.entries(properties)) {
        const maxLength = property.maxLength;
        if (typeof maxLength !== "number") continue;
        const request = JSON.stringify({ skill_id: skill.id, params: { [name]: "x".repeat(maxLength) } });
        expect(Buffer.byteLength(request), `${skill.id} ${name}`).toBeLessThanOrEqual(bodyLimitBytes);
      }
    }
  });

  describe.each(builtinSkills.map((skill) => [skill.id, skill] as const))("%s", (_id, skill) => {
    describeSkillRules(skill);
  });
});
