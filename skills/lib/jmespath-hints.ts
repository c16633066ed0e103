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
