import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinSkills } from "../../skills/index.js";
import { silentLogger } from "../../src/core/logger.js";
import { Skillport } from "../../src/core/skillport.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import { checkSkillSettings } from "../../src/core/skills/skill-settings.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";

/** A skill whose settings schema is a plain (not strict) object. */
const loose = defineSkill({
  id: "test.loose",
  title: "Loose settings",
  description: "Takes one setting.",
  tags: [],
  params: z.object({}),
  result: z.object({}),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, lightAsyncIo: true },
  examples: [],
  settings: z.object({ verbose: z.boolean().optional() }),
  async run() {
    return {};
  },
});

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
    [{ "http.request": 5 }, /http\.request: must be an object, not a number/],
    [
      { "http.request": { allowPrivateNetworks: "yes" } },
      /http\.request\.allowPrivateNetworks: must be true or false, not a string/,
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

  it("refuses an unknown setting even where the skill's schema is not strict", () => {
    expect(checkSkillSettings([loose], { "test.loose": { verbose: true } })).toEqual({
      "test.loose": { verbose: true },
    });
    expect(() => checkSkillSettings([loose], { "test.loose": { verbos: true } })).toThrow(
      /test\.loose: .*verbos/,
    );
  });

  it("is checked by the core itself, whoever builds it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skillport-settings-"));
    const store = openSqliteStore({ dataDir: dir });
    try {
      expect(
        () =>
          new Skillport({ store, skills: [loose], logger: silentLogger, skillConfig: { "test.lose": {} } }),
      ).toThrow(/test\.lose: no skill has this id/);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
