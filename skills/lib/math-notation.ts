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

/**
 * Digits grouped as a thousands separator writes them, whole: 1,234 or 100,200,300 (with a
 * decimal part, 1,234.5), not within a longer number or a name.
 */
const GROUPED_DIGITS = /(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)/g;
/** A string in quotes, whose commas are text. */
const QUOTED_TEXT = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;

/**
 * What to tell the caller of an expression mathjs read, where digits are grouped like a
 * thousands separator (refuseThousandsSeparator leaves these: max(1,234) may well be two
 * arguments): inside brackets each comma separates values, so sum(1,234) is 235, and
 * a caller who meant one thousand two hundred thirty-four must learn it from the answer.
 */
export function groupedDigitsNote(expression: string): string | undefined {
  const text = expression.replace(QUOTED_TEXT, (quoted) => " ".repeat(quoted.length));
  const amongValues = [...text.matchAll(GROUPED_DIGITS)].filter((match) => inListOfValues(text, match.index));
  const groups = [...new Set(amongValues.map((match) => match[0]))];
  if (groups.length === 0) return undefined;
  const readings = groups.map((group) => `${group} as ${inWords(group.split(","))}`).join("; ");
  const whole = groups.map((group) => group.replaceAll(",", "")).join(", ");
  return (
    `Read ${readings}: a comma separates a function's arguments or a matrix's values. If ` +
    `${groups.length === 1 ? "it was one number" : "they were numbers"}, write ${whole}, without thousands separators.`
  );
}

/**
 * Functions that take a list of values of any length (one included), where digits grouped
 * like 1,234 may be one value or two. Elsewhere a comma separates parameters that differ in
 * meaning, which no one writes for a thousands separator: pow(2,100), gcd(120,360),
 * zeros(2,100) and round(3.14159,2) got the note wrongly.
 */
const LIST_FUNCTIONS = new Set([
  "sum",
  "prod",
  "max",
  "min",
  "mean",
  "median",
  "mode",
  "std",
  "variance",
  "mad",
  "cumsum",
  "hypot",
]);

/**
 * Whether the digits at `index` are among a list of values: in a matrix's brackets, in the
 * arguments of a `LIST_FUNCTIONS` function, or in none at all.
 */
function inListOfValues(text: string, index: number): boolean {
  let depth = 0;
  for (let at = index - 1; at >= 0; at--) {
    const char = text[at];
    if (char === ")" || char === "]") depth++;
    else if ((char === "(" || char === "[") && depth > 0) depth--;
    else if (char === "[") return true;
    else if (char === "(") return LIST_FUNCTIONS.has(nameBefore(text, at));
  }
  return true;
}

/** The name written just before `at` (spaces between allowed), read backwards: a regex anchored at the end scans the whole text. */
function nameBefore(text: string, at: number): string {
  let end = at;
  while (end > 0 && /\s/.test(text[end - 1] ?? "")) end--;
  let start = end;
  while (start > 0 && /\w/.test(text[start - 1] ?? "")) start--;
  return text.slice(start, end);
}

/** "1 and 234", "100, 200 and 300". */
function inWords(values: readonly string[]): string {
  return `${values.slice(0, -1).join(", ")} and ${values.at(-1)}`;
}

/** Words people write for an operator, which mathjs reads as undefined variables, and the operator. */
const OPERATOR_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  plus: ["plus", "+"],
  minus: ["minus", "-"],
  times: ["times", "*"],
  multiplied: ["multiplied by", "*"],
  divided: ["divided by", "/"],
  over: ["over", "/"],
  percent: ["percent", "%"],
};

/**
 * Advice for an expression that failed on an undefined symbol that is an operator written as
 * a word: "10% of 200" is 10% * 200 ("of" was an unknown variable), "5 plus 3" is 5 + 3, and
 * "5 x 3" multiplies. Any other undefined symbol gets none: it may be a variable to assign.
 */
export function operatorWordHint(expression: string, message: string): string {
  const symbol = /^Undefined symbol (\w+)$/.exec(message)?.[1];
  if (symbol === undefined) return "";
  const word = symbol.toLowerCase();
  if (word === "of") return " (write 10% of 200 as 10% * 200)";
  if (word === "x" && /\d\s*x\s*\d/i.test(expression)) return " (write * to multiply: 5 * 3)";
  const words = OPERATOR_WORDS[word];
  return words === undefined ? "" : ` (write "${words[0]}" as the operator ${words[1]})`;
}
