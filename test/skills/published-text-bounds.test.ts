import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { mathEvaluate } from "../../skills/math-evaluate.js";
import { toCatalogSkill } from "../../src/core/skills/registry.js";

interface StringSchema {
  type?: string;
  enum?: unknown[];
  maxLength?: number;
  anyOf?: StringSchema[];
}

/** The string schema a top-level param takes text through, if any (a `time` is a string or a number). */
function textSchema(property: StringSchema): StringSchema | undefined {
  if (property.type === "string" && property.enum === undefined) return property;
  return property.anyOf?.find((option) => option.type === "string" && option.enum === undefined);
}

/**
 * Text an agent may send: blank, surrounded by white space, and at or one past the published
 * `maxLength` once spaces surround it. "x" fits every pattern a text param has.
 */
function probes(maxLength: number | undefined): string[] {
  const texts = ["", "   ", "\t\n", " x ", "x"];
  if (maxLength !== undefined) {
    texts.push("x".repeat(maxLength), ` ${"x".repeat(maxLength - 2)} `, ` ${"x".repeat(maxLength)} `);
  }
  return texts;
}

describe("a skill's published params schema and the server's check of its text params (audit 27 F1)", () => {
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);

  for (const skill of builtinSkills) {
    const catalog = toCatalogSkill(skill);
    const example = skill.examples[0]?.params ?? {};
    const properties = (catalog.paramsSchema.properties ?? {}) as Record<string, StringSchema>;
    const texts = Object.entries(properties).flatMap(([name, property]) => {
      const text = textSchema(property);
      return text ? [{ name, maxLength: text.maxLength }] : [];
    });
    if (texts.length === 0) continue;

    it(`${skill.id}: accepts and refuses the same text`, () => {
      const fits = ajv.compile(catalog.paramsSchema);
      for (const { name, maxLength } of texts) {
        for (const text of probes(maxLength)) {
          const params = { ...example, [name]: text };
          const published = fits(params);
          const enforced = catalog.params.safeParse(params).success;
          expect(
            enforced,
            `${name}: ${JSON.stringify(text.length > 20 ? `${text.length} characters` : text)}`,
          ).toBe(published);
        }
      }
    });
  }

  it("tells blank text that it is blank, not that it has fewer than 1 character", () => {
    const parsed = toCatalogSkill(mathEvaluate).params.safeParse({ expression: "   " });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual(["must not be blank"]);
  });

  it("still hands the skill its text trimmed", () => {
    expect(toCatalogSkill(mathEvaluate).params.parse({ expression: "  1 + 1\n" })).toEqual({
      expression: "1 + 1",
    });
  });
});
