import type { JSONValue } from "@jmespath-community/jmespath";
import { z } from "zod";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { errorMessage } from "./lib/errors.js";
import {
  quotingHint,
  refuseBareNameComparison,
  refuseLengthMember,
  refuseQuotedStringComparison,
  refuseStringOrdering,
  syntaxHint,
} from "./lib/jmespath-hints.js";
import { anyJson, jsonTextProblem, parseJsonText } from "./lib/json-input.js";
import { lazy } from "./lib/lazy.js";
import { nonFiniteNumber } from "./lib/non-finite.js";
import { trimmedText } from "./lib/trimmed-text.js";

const loadJmespath = lazy(async () => {
  const [{ compile }, { searchOwnProperties }] = await Promise.all([
    import("@jmespath-community/jmespath"),
    import("./lib/own-property-jmespath.js"),
  ]);
  return { compile, searchOwnProperties };
});

export const jsonQuery = defineSkill({
  id: "json.query",
  title: "Query JSON with JMESPath",
  description:
    'Selects, filters and reshapes JSON data with a JMESPath expression, e.g. "people[?age > `30`].name", ' +
    "\"items[?state == 'open'].id\", " +
    '"length(items)", "sort_by(users, &created)[-1]". Takes `data` (any JSON, or JSON text such as http.request\'s ' +
    "`body`) and `expression`; returns `result`. " +
    "Use it to pull fields out of an API response or count and filter records.",
  tags: ["json", "jmespath", "query", "filter", "extract", "transform", "data"],
  params: z.object({
    data: anyJson(
      "The JSON document to query (object, array or scalar). A string whose trimmed text starts with { or [ " +
        "and parses as JSON, such as http.request's `body`, is queried as the parsed document.",
    ),
    expression: trimmedText(2000).describe(
      "JMESPath expression (jmespath.org, community edition), not JSONPath (a.b, not $.a.b). Strings are in " +
        "single quotes and numbers in backticks: items[?status == 'open' && size > `10`]; double quotes name a key, " +
        'as a key with "-" or spaces needs: "first-name". <, <=, > and >= compare numbers only.',
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
        `Invalid JMESPath expression ${JSON.stringify(params.expression)}: ${errorMessage(err)}${syntaxHint(params.expression, errorMessage(err))}`,
        { cause: err },
      );
    }
    const data = parseJsonText(params.data);
    refuseQuotedStringComparison(params.expression, data);
    let result: unknown;
    try {
      result = searchOwnProperties(ast, data as JSONValue);
    } catch (err) {
      throw new SkillError(
        `Could not apply ${JSON.stringify(params.expression)}: ${errorMessage(err)}${quotingHint(params.expression)}`,
        { cause: err },
      );
    }
    // Only an empty answer is explained: one that found something stands as it is.
    refuseBrokenJsonText(params.expression, params.data, result);
    refuseBareNameComparison(params.expression, data, result);
    refuseStringOrdering(params.expression, result);
    refuseLengthMember(params.expression, data, result, (part) =>
      searchOwnProperties(compile(part), data as JSONValue),
    );
    refuseNonFiniteResult(params.expression, result);
    return { result };
  },
});

/**
 * Fails a null answer from a string that starts as JSON text does but does not parse: queried
 * as a string, every field of it is null, and a document cut short (http.request's body
 * beyond max_bytes) answered null as if it had no such field.
 */
function refuseBrokenJsonText(expression: string, data: unknown, result: unknown): void {
  if (result !== null) return;
  const problem = jsonTextProblem(data);
  if (problem === undefined) return;
  throw new SkillError(
    `data is a string that starts like JSON but is not valid JSON (${problem.slice(0, 200)}), so ` +
      `${JSON.stringify(expression)} found nothing in it: pass the whole document as JSON text or as an object ` +
      "or array (an http.request body with truncated: true was cut at max_bytes: ask for more with a larger " +
      "max_bytes)",
  );
}

/**
 * Fails an answer holding a number JSON cannot carry, which JMESPath's arithmetic makes from
 * JSON data (1e308 * `10` is Infinity, a % `0` NaN): said in the expression's terms, where
 * the execution's own check would blame the skill.
 */
function refuseNonFiniteResult(expression: string, result: unknown): void {
  const found = nonFiniteNumber(result);
  if (found === undefined) return;
  const why = Number.isNaN(found.number)
    ? "not a number (as from a % `0`)"
    : "a number beyond what JSON holds (about ±1.8e308)";
  throw new SkillError(
    `${JSON.stringify(expression)} computes ${found.number} at ${found.path}: ${why}, which JSON cannot ` +
      "carry; check the arithmetic and the numbers it reads",
  );
}
