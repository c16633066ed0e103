import type { z } from "zod";
import { safeParseInWords, toErrorDetails } from "../validation.js";
import { SkillAnnotationsSchema } from "./skill.js";

/** contract.md: a skill id is letters, digits and `. _ : / -`, starting with a letter or digit. */
const SKILL_ID_CHARACTERS = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;
const MAX_SKILL_ID_LENGTH = 128;

/**
 * What makes a skill definition unusable, each naming the field and the rule, checked
 * before anything reads the definition. TypeScript catches most of these,
 * but a `// @ts-expect-error`, a JavaScript module or a skill built from data got a raw
 * TypeError (`params.strict is not a function`) or a message leaving out the rule it broke.
 * An empty title or description is refused too (F6): discovery and MCP clients show them.
 */
export function definitionProblems(skill: unknown): string[] {
  if (skill === null || typeof skill !== "object") return ["a skill must be an object (use defineSkill)"];
  const { id, title, description, tags, params, result, annotations, examples, run } = skill as Record<
    string,
    unknown
  >;
  const problems: string[] = [];
  if (typeof id !== "string") problems.push("id must be a string");
  else if (id.length > MAX_SKILL_ID_LENGTH) {
    problems.push(`id has ${id.length} characters; a skill id has at most ${MAX_SKILL_ID_LENGTH}`);
  } else if (!SKILL_ID_CHARACTERS.test(id)) {
    problems.push("id must start with a letter or digit and use only letters, digits and . _ : / -");
  }
  for (const [name, value] of [
    ["title", title],
    ["description", description],
  ] as const) {
    if (typeof value !== "string" || value.trim() === "") problems.push(`${name} must be a non-empty string`);
  }
  if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string")) {
    problems.push("tags must be an array of strings");
  }
  for (const [name, value] of [
    ["params", params],
    ["result", result],
  ] as const) {
    if (!isZodObject(value)) problems.push(`${name} must be a zod object schema (z.object({ ... }))`);
  }
  const checkedAnnotations = SkillAnnotationsSchema.safeParse(annotations);
  if (!checkedAnnotations.success) {
    problems.push(
      "annotations must be an object of the booleans readOnly, destructive, idempotent and openWorld " +
        "(and optionally lightAsyncIo)",
    );
  }
  if (!Array.isArray(examples)) problems.push("examples must be an array of { query, params }");
  else {
    examples.forEach((example, index) => {
      const { query, params: given } = (example ?? {}) as Record<string, unknown>;
      if (typeof query !== "string" || query.trim() === "" || given === null || typeof given !== "object") {
        problems.push(`examples[${index}] must be { query: a non-empty string, params: an object }`);
      }
    });
  }
  if (typeof run !== "function") problems.push("run must be a function");
  return problems;
}

/**
 * The examples whose params the skill's own params schema (as calls are checked) refuses,
 * each with why: an agent copies an example, and must not get a 422 for it.
 */
export function exampleProblems(
  examples: readonly { query: string; params: unknown }[],
  params: z.ZodType,
): string[] {
  return examples.flatMap((example, index) => {
    const parsed = safeParseInWords(params, example.params);
    if (parsed.success) return [];
    const why = toErrorDetails(parsed.error, params, example.params)
      .map((detail) => `${detail.path}: ${detail.message}`)
      .join("; ");
    return [
      `examples[${index}] (${JSON.stringify(example.query)}) has params its params schema refuses: ${why}`,
    ];
  });
}

/** A zod object schema, by its definition (a skill module may bring its own copy of zod). */
function isZodObject(value: unknown): value is z.ZodObject {
  const def = (value as { _zod?: { def?: { type?: unknown } } } | null | undefined)?._zod?.def;
  return def?.type === "object" && typeof (value as { strict?: unknown }).strict === "function";
}
