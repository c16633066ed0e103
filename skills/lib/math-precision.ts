import type { MathJsInstance } from "mathjs";

/**
 * `text` is for people: at most 14 significant digits, which hides float noise such as
 * 0.1 + 0.2 = 0.30000000000000004, in plain notation from 1e-7 up to 1e21, about the
 * thresholds of JavaScript's own Number#toString (mathjs's default switched to exponents
 * from 1e5: 398752 was "3.98752e+5").
 */
const TEXT_FORMAT = { precision: 14, lowerExp: -7, upperExp: 21 };

/** Below this an integer is written in plain digits, the digits a reader takes as exact. */
const PLAIN_INTEGER_LIMIT = 1e21;

/**
 * `value` formatted for `text`, numbers inside matrices, complex numbers and objects
 * included, and whether it holds an integer a floating-point number cannot hold exactly.
 * An exact integer is written whole: rounded to 14 digits, 123456789012345 read
 * 123456789012350, another integer, with nothing to tell it apart from an exact answer. So
 * is an integer big number below 1e21 (bignumber("123456789012345678") is exact; its
 * rounded text was not).
 */
export function formatText(math: MathJsInstance, value: unknown): { text: string; inexact: boolean } {
  let inexact = false;
  const text = math.format(value, (part: unknown) => {
    if (typeof part === "number") {
      if (Number.isSafeInteger(part)) return String(part);
      if (isInexactInteger(part)) inexact = true;
    } else if (math.isBigNumber(part) && part.isInteger() && part.abs().lt(PLAIN_INTEGER_LIMIT)) {
      return part.toFixed();
    }
    return math.format(part, TEXT_FORMAT);
  });
  return { text, inexact };
}

/**
 * An integer beyond Number.MAX_SAFE_INTEGER, below the plain-digit limit: its digits read as
 * exact, but the neighbouring integers are the same double (2^53 + 1 is 2^53), so the last
 * ones may be wrong. From 1e21 up, `text` writes an exponent, which does not claim every digit.
 */
function isInexactInteger(value: number): boolean {
  return (
    Number.isInteger(value) &&
    Math.abs(value) > Number.MAX_SAFE_INTEGER &&
    Math.abs(value) < PLAIN_INTEGER_LIMIT
  );
}

const LARGEST_EXACT = `${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest integer a floating-point number holds exactly`;
const USE_BIGNUMBER = 'For exact integers, write them as big numbers: bignumber("123456789012345678") * 2.';

/** What the answer says of a result with an integer beyond the exact range (see `formatText`). */
export const INEXACT_RESULT_NOTE = `The result is beyond ${LARGEST_EXACT}, so its last digits may be wrong. ${USE_BIGNUMBER}`;

/** Runs of digits standing as a whole integer: not the fraction of a decimal, nor part of a name. */
const INTEGER_LITERAL = /(?<![\w.])\d{16,}(?![\w.])/g;
const QUOTED_TEXT = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;

/**
 * What to tell the caller of an integer in the expression that no floating-point number
 * holds: mathjs reads it as the nearest one (12345678901234567891 as 12345678901234567168),
 * so a remainder or a comparison with it answers for another number, without a word.
 */
export function inexactLiteralNote(expression: string): string | undefined {
  const text = expression.replace(QUOTED_TEXT, (quoted) => " ".repeat(quoted.length));
  const literals = [...new Set([...text.matchAll(INTEGER_LITERAL)].map((match) => match[0]))].filter(
    (digits) => BigInt(digits) > BigInt(Number.MAX_SAFE_INTEGER),
  );
  if (literals.length === 0) return undefined;
  const readings = literals.map((digits) => `${digits} as ${readAs(Number(digits))}`).join(", ");
  return `Read ${readings}: beyond ${LARGEST_EXACT}. ${USE_BIGNUMBER}`;
}

/** The number a literal became, digit for digit: what a remainder or comparison uses. */
function readAs(value: number): string {
  return Number.isFinite(value) ? BigInt(value).toString() : String(value);
}
