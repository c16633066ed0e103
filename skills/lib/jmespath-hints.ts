import { SkillError } from "../../src/core/skills/skill.js";

/**
 * Advice for the usual slips in a JMESPath expression, most of them habits of JSONPath and of
 * languages where "x" is a string: JMESPath's parser names only the token it stopped at.
 */

/** A quoted identifier, raw string or literal, in the order they appear; the first group is a quoted identifier. */
const QUOTED = /("(?:[^"\\]|\\.)*")|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g;

/**
 * Quoted identifiers, raw strings and literals (skipped), or an unquoted name with a '-' in
 * it: JMESPath reads `first-name` as first minus name, the usual mistake with such keys.
 * Not after `$` or a word character: `$a-b` is a variable minus b, `2e-5` a number.
 */
const DASHED_NAMES =
  /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|(?<![$\w])([A-Za-z_]\w*(?:-\w+)+)/g;

const COMPARATOR_BEFORE = /(?:==|!=|<=|>=|<|>)\s*$/;
const COMPARATOR_AFTER = /^\s*(?:==|!=|<=|>=|<|>)/;

/** JSONPath's marks that JMESPath has no use for: `$..n`, `?(@.v > 1)`, `$['a']`. */
const JSONPATH = /\.\.|\?\s*\(\s*@|\$\s*\[\s*['"]/;

const EXAMPLE = "people[?age > `30`].name";

/** Advice to quote the names with a '-' that the failed expression left unquoted, if any. */
export function quotingHint(expression: string): string {
  const names = [...expression.matchAll(DASHED_NAMES)].flatMap((match) => (match[1] ? [match[1]] : []));
  if (names.length === 0) return "";
  const unique = [...new Set(names)];
  const quoted = unique.map((name) => JSON.stringify(name)).join(", ");
  return unique.length === 1
    ? ` (a key with '-' must be quoted: ${quoted})`
    : ` (keys with '-' must be quoted: ${quoted})`;
}

/**
 * What the parser's error means for the expression: JSONPath written for JMESPath, a bare
 * number (JMESPath writes literals in backticks), or else what a JMESPath expression looks like.
 */
export function syntaxHint(expression: string, parserMessage: string): string {
  if (expression.trimStart().startsWith("$") && JSONPATH.test(expression)) {
    return (
      " (json.query takes JMESPath, not JSONPath: write a.b for $.a.b, a[*].n for $.a[*].n, " +
      "a[?v > `1`].n for $.a[?(@.v > 1)].n; JMESPath has no '..' for any depth)"
    );
  }
  const number = /invalid token \(Number\): "([^"]*)"/.exec(parserMessage)?.[1];
  if (number !== undefined) {
    return ` (JMESPath writes a number as a literal in backticks: \`${number}\`, as in ${EXAMPLE})`;
  }
  return (
    quotingHint(expression) ||
    ` (a JMESPath expression looks like a.b, items[0], ${EXAMPLE} or length(items))`
  );
}

/**
 * Fails a comparison with a double-quoted name the data has nowhere: in JMESPath `"x"` is the
 * field x, not a string, so `a[?n == "x"]` compared n with a missing field, matched nothing
 * and answered [] as if no record matched. A name the data has is a field comparison, which
 * may be meant, and is left alone.
 */
export function refuseQuotedStringComparison(expression: string, data: unknown): void {
  const compared: string[] = [];
  for (const match of expression.matchAll(QUOTED)) {
    if (match[1] === undefined) continue;
    const before = expression.slice(0, match.index);
    const after = expression.slice(match.index + match[0].length);
    if (COMPARATOR_BEFORE.test(before) || COMPARATOR_AFTER.test(after)) compared.push(JSON.parse(match[1]));
  }
  if (compared.length === 0) return;
  const keys = keysOf(data);
  const missing = [...new Set(compared.filter((name) => !keys.has(name)))];
  const [first] = missing;
  if (first === undefined) return;
  const name = JSON.stringify(first);
  throw new SkillError(
    `${name} in ${JSON.stringify(expression)} is a field name in JMESPath, not a string, and the data has no ` +
      `field ${name}, so the comparison would match nothing: write the string in single quotes, ` +
      `'${first.replaceAll("'", "\\'")}', or as a JSON literal in backticks, \`${name}\``,
  );
}

/** Every key of every object in `value`, at any depth. */
function keysOf(value: unknown): Set<string> {
  const keys = new Set<string>();
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null) continue;
    if (Array.isArray(next)) pending.push(...next);
    else {
      for (const [key, member] of Object.entries(next)) {
        keys.add(key);
        pending.push(member);
      }
    }
  }
  return keys;
}

/**
 * A name JMESPath reads as a field, unquoted, beside a comparison: not a path step (`a.b`,
 * `@.n`), a function, an expression reference or a variable.
 */
const COMPARED_BARE_NAME =
  /(?<=(?:==|!=|<=|>=|<|>)\s*)(?<![\w$@.&])[A-Za-z_]\w*(?!\s*[\w.[(])|(?<![\w$@.&])[A-Za-z_]\w*(?=\s*(?:==|!=|<=|>=|<|>))/g;
/** JSON's literals, which JMESPath writes in backticks: bare, `true` is the field "true". */
const JSON_LITERALS = new Set(["true", "false", "null"]);

/**
 * Fails an answer of [] or null that an unquoted name compared as if it were a value
 * explains: `a[?n == x]` and `a[?done == true]` compare n with the fields x and true, which
 * the data has nowhere, and match nothing, as `"x"` did (refuseQuotedStringComparison).
 * Checked only once the answer is empty, so a query that found something is never refused,
 * and only when another compared name is a field of the data.
 */
export function refuseBareNameComparison(expression: string, data: unknown, answer: unknown): void {
  if (!isEmptyAnswer(answer)) return;
  const compared = [...maskQuoted(expression).matchAll(COMPARED_BARE_NAME)].map((match) => match[0]);
  if (compared.length === 0) return;
  const keys = keysOf(data);
  // Only beside a name the data has (`n` in `a[?n == x]`): a field compared with a value
  // over records that lack it, or over none (`orders[?status == 'open']` of `[]`), is no slip.
  if (!compared.some((name) => keys.has(name))) return;
  const missing = compared.find((name) => !keys.has(name));
  if (missing === undefined) return;
  const written = JSON_LITERALS.has(missing)
    ? `write ${missing} as a literal in backticks: \`${missing}\``
    : `write the string in single quotes, '${missing}' (a number goes in backticks: \`1\`)`;
  throw new SkillError(
    `${missing} in ${JSON.stringify(expression)} is a field name in JMESPath, and the data has no field ` +
      `${missing}, so the comparison matched nothing: ${written}`,
  );
}

/** An ordering comparator beside a string: a raw string ('2024-01-01') or a JSON string literal (`"a"`). */
const STRING_ORDERED =
  /(?:<=?|>=?)\s*(?:'(?:[^'\\]|\\.)*'|`\s*"(?:[^"\\]|\\.)*"\s*`)|(?:'(?:[^'\\]|\\.)*'|`\s*"(?:[^"\\]|\\.)*"\s*`)\s*(?:<=?|>=?)/;

/**
 * Fails an empty answer from ordering by a string: JMESPath's <, <=, > and >= compare numbers
 * only, and are never true with a string, so `orders[?date >= '2024-01-01']` (how an agent
 * filters by date) matched nothing and answered [] as if no record were that recent.
 */
export function refuseStringOrdering(expression: string, answer: unknown): void {
  if (!isEmptyAnswer(answer)) return;
  const ordered = STRING_ORDERED.exec(expression)?.[0];
  if (ordered === undefined) return;
  throw new SkillError(
    `${JSON.stringify(ordered)} in ${JSON.stringify(expression)} orders a string: in JMESPath <, <=, > and >= ` +
      "compare numbers only and are never true with a string, so nothing matched. Compare strings with ==, !=, " +
      "starts_with() or contains(); for ISO 8601 dates, compare their digits as a number: " +
      "to_number(replace(date[0:10], '-', '')) >= `20240101`",
  );
}

/**
 * Fails a null that `.length` gave where JavaScript's habit was meant: JMESPath has no
 * length member, so `a.length` of an array or a string is null; `length(a)` is its size.
 * A `length` field the data has, or `.length` of an object (a field it may lack), is left alone.
 */
export function refuseLengthMember(
  expression: string,
  data: unknown,
  answer: unknown,
  evaluate: (expression: string) => unknown,
): void {
  if (answer !== null) return;
  const of = /^(.+?)\s*\.\s*length$/.exec(expression.trim())?.[1];
  if (of === undefined || keysOf(data).has("length")) return;
  let value: unknown;
  try {
    value = evaluate(of);
  } catch {
    return; // not an expression on its own (inside a projection, say): nothing to say
  }
  if (!Array.isArray(value) && typeof value !== "string") return;
  throw new SkillError(
    `${JSON.stringify(expression)} is null: ${of} is ${Array.isArray(value) ? "an array" : "a string"}, and ` +
      `JMESPath has no .length member (it looks for a field "length"): write length(${of}) for its length`,
  );
}

/** [] or null: what an expression that matched nothing answers. */
function isEmptyAnswer(answer: unknown): boolean {
  return answer === null || (Array.isArray(answer) && answer.length === 0);
}

/** The expression with quoted identifiers, raw strings and literals blanked, at the same positions. */
function maskQuoted(expression: string): string {
  return expression.replace(QUOTED, (match) => " ".repeat(match.length));
}
