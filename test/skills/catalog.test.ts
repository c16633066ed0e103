import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
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

  describe.each(builtinSkills.map((skill) => [skill.id, skill] as const))("%s", (_id, skill) => {
    describeSkillRules(skill);
  });
});
