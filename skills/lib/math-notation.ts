import { SkillError } from "../../src/core/skills/skill.js";

/**
 * Everyday notations mathjs does not read, which agents pass on from what users write.
 * `×`, `÷` and `−` (U+2212) have one meaning and are rewritten; `**` is Python's and
 * JavaScript's power, which mathjs writes `^` with the same reading (right-associative,
 * above unary minus: -2**2 and -2^2 are both -4). Strings in quotes are left as they are.
 */
const REWRITES: Record<string, string> = { "×": "*", "÷": "/", "−": "-", "**": "^" };
const REWRITTEN = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|(×|÷|−|\*\*)/g;

/** The expression with `×`, `÷`, `−` and `**` written as mathjs reads them. */
export function mathjsNotation(expression: string): string {
  return expression.replace(REWRITTEN, (match, operator: string | undefined) =>
    operator === undefined ? match : (REWRITES[operator] ?? match),
  );
}

/** A currency sign beside a number: mathjs reads `$86` as an undefined variable. */
const CURRENCY = /[$€£¥₹](?=\s?\d)|(?<=\d)\s?[€£¥₹]/;

/** Fails an amount with a currency sign, saying to write the number alone. */
export function refuseCurrency(expression: string): void {
  const sign = CURRENCY.exec(expression)?.[0]?.trim();
  if (sign === undefined) return;
  throw new SkillError(
    `Invalid expression ${JSON.stringify(expression)}: write amounts without the currency sign ${sign}, ` +
      "e.g. 86.40 * 0.17 for $86.40 * 17%",
  );
}

/** A comma between digits followed by exactly three, as a thousands separator writes it: 1,000 or 12,345,678. */
const THOUSANDS = /\d,\d{3}(?!\d)/;
/** The same with a group starting with 0, which no one writes as a number of its own: 1,000 and 2,050, not 1,234. */
const SURE_THOUSANDS = /\d,0\d\d(?![\d.])/;
const THOUSANDS_HINT =
  "write numbers without thousands separators: 1000 for 1,000; a comma separates a function's arguments";

/**
 * Fails a thousands separator mathjs would read without a word: inside brackets a comma
 * separates values, so sum(1,000,000) was 1. Only where a group starts with 0: max(1,234)
 * may well be two arguments.
 */
export function refuseThousandsSeparator(expression: string): void {
  if (SURE_THOUSANDS.test(expression)) {
    throw new SkillError(`Invalid expression ${JSON.stringify(expression)}: ${THOUSANDS_HINT}`);
  }
}

/**
 * Advice for an expression mathjs could not parse: a comma where mathjs takes none is most
 * likely a thousands separator (1,000), which mathjs would read as two values.
 */
export function parseHint(expression: string): string {
  return THOUSANDS.test(expression) ? ` (${THOUSANDS_HINT})` : "";
}
