import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { checkSkillSettings } from "../../src/core/skills/skill-settings.js";

describe("per-skill settings (SKILLPORT_SKILL_CONFIG)", () => {
  it("takes a skill's declared settings, as its schema parses them", () => {
    expect(checkSkillSettings(builtinSkills, { "http.request": { allowPrivateNetworks: true } })).toEqual({
      "http.request": { allowPrivateNetworks: true },
    });
    expect(checkSkillSettings(builtinSkills, {})).toEqual({});
  });

  it.each([
    [
      { "http.requets": { allowPrivateNetworks: true } },
      /http\.requets: no skill has this id \(skills with settings: http\.request\)/,
    ],
    [{ "math.evaluate": {} }, /math\.evaluate: this skill takes no settings/],
    [{ "http.request": 5 }, /http\.request: .*expected object/],
    [
      { "http.request": { allowPrivateNetworks: "yes" } },
      /http\.request\.allowPrivateNetworks: .*expected boolean/,
    ],
    [{ "http.request": { allowPrivateNetwork: true } }, /http\.request: .*allowPrivateNetwork/],
  ])("refuses %j, naming what cannot work", (given, message) => {
    expect(() => checkSkillSettings(builtinSkills, given)).toThrow(message);
  });

  it("names every problem at once", () => {
    expect(() => checkSkillSettings(builtinSkills, { "a.b": {}, "http.request": { x: 1 } })).toThrow(
      /a\.b: no skill has this id.*; http\.request: /,
    );
  });
});
