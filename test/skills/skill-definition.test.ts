import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinSkills } from "../../skills/index.js";
import { checkSkills, SkillRegistry, toCatalogSkill } from "../../src/core/skills/registry.js";
import { defineSkill, type Skill } from "../../src/core/skills/skill.js";
import { metadataWarnings, warnOfPoorMetadata } from "../../src/core/skills/skill-metadata.js";
import { GENERIC_TOOL_NAMES } from "../../src/mcp/generic-tools.js";
import { warnOfToolNames } from "../../src/mcp/tool-names.js";
import { capturedLog } from "../support/captured-log.js";
import { otherWords } from "./fixtures/duplicate-words-skill.js";

// Audit 26 F6 and F7: a broken skill definition stopped start-up with a raw TypeError or a
// message leaving out the rule; examples the skill refuses, an empty title and poor
// metadata were served without a word; a tool name taking a hash suffix was not told.

const good = defineSkill({
  id: "acme.words",
  title: "Count words",
  description: "Counts the words of a text and returns the count as `words`.",
  tags: ["text"],
  params: z.object({ text: z.string().describe("The text whose words to count") }),
  result: z.object({ words: z.number() }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    { query: "how many words are in this sentence", params: { text: "a b c" } },
    { query: "word count of my essay", params: { text: "essay" } },
  ],
  run: async ({ text }) => ({ words: text.split(/\s+/).length }),
});

/** The skill `good` with some fields replaced, as a JavaScript module or @ts-expect-error allows. */
const variant = (fields: Record<string, unknown>) => ({ ...good, ...fields }) as unknown as Skill;
const refusal = (skill: Skill) => {
  try {
    toCatalogSkill(skill);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("not refused");
};

describe("a skill definition that cannot be served", () => {
  it("is refused naming the skill, the field and the rule", () => {
    expect(refusal(variant({ id: "a".repeat(129) }))).toBe(
      `Skill ${"a".repeat(60)}…: id has 129 characters; a skill id has at most 128`,
    );
    expect(refusal(variant({ id: "acme words" }))).toMatch(
      /^Skill acme words: id must start .* \. _ : \/ -$/,
    );
    expect(refusal(variant({ params: z.string() }))).toBe(
      "Skill acme.words: params must be a zod object schema (z.object({ ... }))",
    );
    expect(refusal(variant({ result: undefined }))).toMatch(
      /^Skill acme\.words: result must be a zod object/,
    );
    expect(refusal(variant({ annotations: undefined }))).toMatch(
      /^Skill acme\.words: annotations must be an object of the booleans readOnly, destructive, idempotent and openWorld/,
    );
    expect(refusal(variant({ title: "" }))).toBe("Skill acme.words: title must be a non-empty string");
    expect(refusal(variant({ description: "  " }))).toBe(
      "Skill acme.words: description must be a non-empty string",
    );
    expect(refusal(variant({ tags: "text" }))).toBe("Skill acme.words: tags must be an array of strings");
    expect(refusal(variant({ run: undefined }))).toBe("Skill acme.words: run must be a function");
  });

  it("is refused when an example's params are refused by its own params schema, saying why", () => {
    const message = refusal(variant({ examples: [{ query: "bad example", params: { txt: "wrong" } }] }));
    expect(message).toContain(
      'Skill acme.words: examples[0] ("bad example") has params its params schema refuses',
    );
    expect(message).toContain('txt: is not allowed here; did you mean "text"?');
  });

  // Left open in session 26: "another skill has the same id" named neither module.
  it("names the id two skills share and the module and line each was declared at, at start-up and in the registry", () => {
    const both =
      /^Skill acme\.words: declared twice, in test\/skills\/skill-definition\.test\.ts:\d+ and in test\/skills\/fixtures\/duplicate-words-skill\.ts:5; each skill needs its own id$/;
    expect(() => checkSkills([good, otherWords])).toThrow(both);
    expect(() => new SkillRegistry([good, otherWords])).toThrow(both);
    expect(() => checkSkills([good, good])).toThrow(
      /^Skill acme\.words: listed twice \(declared in test\/skills\/skill-definition\.test\.ts:\d+\); list it once$/,
    );
    // A copy spread from a skill has no declaration of its own: the other is still named.
    expect(() => checkSkills([otherWords, variant({})])).toThrow(
      "Skill acme.words: another skill has the same id (one declared in test/skills/fixtures/duplicate-words-skill.ts:5); each skill needs its own id",
    );
  });

  it("passes every built-in skill", () => {
    expect(() => checkSkills(builtinSkills)).not.toThrow();
  });
});

describe("start-up warnings", () => {
  it("tell a skill's author of metadata that makes it hard to find or call", () => {
    const poor = variant({
      description: "x",
      tags: [],
      examples: [{ query: "count", params: { text: "a" } }],
      params: z.object({ text: z.string() }),
    });
    expect(metadataWarnings(poor)).toEqual([
      "it has no tags (discovery filters and ranks by them)",
      "its description has fewer than 40 characters: say what it does, takes and returns",
      "it has 1 example(s): give at least 2, worded as users ask",
      "params text have no .describe(...): agents see no word of what to pass",
    ]);
    const { logger, lines } = capturedLog();
    warnOfPoorMetadata([good, poor, ...builtinSkills], logger);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, skill_id: "acme.words", warnings: expect.any(Array) }),
    ]);
    expect(lines[0]?.msg).toMatch(/^skill acme\.words: it has no tags/);
  });

  it("tell a skill's author its tool name took a hash suffix, and which name it took", () => {
    const { logger, lines } = capturedLog();
    warnOfToolNames(["acme.same", "acme_same", "discover.skills"], GENERIC_TOOL_NAMES, logger);
    expect(lines).toEqual([
      expect.objectContaining({
        skill_id: "acme_same",
        taken_name: "acme_same",
        tool_name: expect.stringMatching(/^acme_same_[0-9a-f]{8}$/),
      }),
      expect.objectContaining({ skill_id: "discover.skills", taken_name: "discover_skills" }),
    ]);
    expect(lines[0]?.msg).toMatch(
      /its MCP tool name acme_same is taken .* so its tool is named acme_same_[0-9a-f]{8}/,
    );
  });
});
