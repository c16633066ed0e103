import type { JSONValue } from "@jmespath-community/jmespath";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import { anyJson, parseJsonText } from "./lib/json-input.js";
import { lazy } from "./lib/lazy.js";

const loadJmespath = lazy(async () => {
  const [{ compile }, { searchOwnProperties }] = await Promise.all([
    import("@jmespath-community/jmespath"),
    import("./lib/own-property-jmespath.js"),
  ]);
  return { compile, searchOwnProperties };
});

/**
 * Quoted identifiers, raw strings and literals (skipped), or an unquoted name with a '-' in
 * it: JMESPath reads `first-name` as first minus name, the usual mistake with such keys.
 * Not after `$` or a word character: `$a-b` is a variable minus b, `2e-5` a number.
 */
const DASHED_NAMES =
  /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|(?<![$\w])([A-Za-z_]\w*(?:-\w+)+)/g;

export const jsonQuery = defineSkill({
  id: "json.query",
  title: "Query JSON with JMESPath",
  description:
    'Selects, filters and reshapes JSON data with a JMESPath expression, e.g. "people[?age > `30`].name", ' +
    '"length(items)", "sort_by(users, &created)[-1]". Takes `data` (any JSON, or JSON text such as http.request\'s ' +
    "`body`) and `expression`; returns `result`. " +
    "Use it to pull fields out of an API response or count and filter records.",
  tags: ["json", "jmespath", "query", "filter", "extract", "transform", "data"],
  params: z.object({
    data: anyJson(
      "The JSON document to query (object, array or scalar). A string whose trimmed text starts with { or [ " +
        "and parses as JSON, such as http.request's `body`, is queried as the parsed document.",
    ),
    expression: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .describe(
        'JMESPath expression (jmespath.org, community edition); a key with "-" or spaces is double-quoted: "first-name".',
      ),
  }),
  result: z.object({
    result: z.unknown().describe("What the expression selects; null when nothing matches."),
  }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [
    {
      query: "get the names of people older than 30",
      params: {
        data: {
          people: [
            { name: "Ann", age: 34 },
            { name: "Bob", age: 25 },
          ],
        },
        expression: "people[?age > `30`].name",
      },
    },
    {
      query: "how many items are in this list",
      params: { data: { items: [1, 2, 3] }, expression: "length(items)" },
    },
    {
      query: "extract id and title of every issue",
      params: { data: [{ id: 1, title: "Bug", state: "open" }], expression: "[].{id: id, title: title}" },
    },
  ],
  async warm() {
    await loadJmespath();
  },
  async run(params) {
    const { compile, searchOwnProperties } = await loadJmespath();
    let ast: ReturnType<typeof compile>;
    try {
      ast = compile(params.expression);
    } catch (err) {
      throw new SkillError(
        `Invalid JMESPath expression ${JSON.stringify(params.expression)}: ${errorMessage(err)}${quotingHint(params.expression)}`,
        { cause: err },
      );
    }
    try {
      return { result: searchOwnProperties(ast, parseJsonText(params.data) as JSONValue) };
    } catch (err) {
      throw new SkillError(
        `Could not apply ${JSON.stringify(params.expression)}: ${errorMessage(err)}${quotingHint(params.expression)}`,
        { cause: err },
      );
    }
  },
});

/** Advice to quote the names with a '-' that the failed expression left unquoted, if any. */
function quotingHint(expression: string): string {
  const names = [...expression.matchAll(DASHED_NAMES)].flatMap((match) => (match[1] ? [match[1]] : []));
  if (names.length === 0) return "";
  const unique = [...new Set(names)];
  const quoted = unique.map((name) => JSON.stringify(name)).join(", ");
  return unique.length === 1
    ? ` (a key with '-' must be quoted: ${quoted})`
    : ` (keys with '-' must be quoted: ${quoted})`;
}
