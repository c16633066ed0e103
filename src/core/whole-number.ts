import { z } from "zod";

/**
 * Decimal digits, a minus sign before them and blanks around them allowed: the only text
 * read as a number (a negative one then hears the lower bound).
 */
const fromDigits = (value: number | string): unknown =>
  typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;

/**
 * A whole number written as text in decimal digits, as in a query string or an environment
 * variable; `fallback` when it is absent. Not `z.coerce.number()`, which reads an empty or
 * blank value as 0 (`?wait=` or `SKILLPORT_PORT=`) and takes `0x10` or `1e3` for numbers
 * nobody meant. Its JSON Schema (OpenAPI) is the integer it stands for, with its default.
 */
export const wholeNumberText = (min: number, max: number, fallback?: number) => {
  // Only text that is no number is told so ("not a string" would mislead: a query string is
  // all text); a number out of range hears its bounds (`issueInWords`).
  // The bounds are checked first, and alone: digits past 2^53 are out of range, and the
  // client is told the range (<=60), not zod's safe-integer bound (<=9007199254740991).
  const number = z
    .number({ error: (issue) => (issue.code === "invalid_type" ? "must be a whole number" : undefined) })
    .min(min, { abort: true })
    .max(max, { abort: true })
    .int();
  return z.preprocess(fromDigits, fallback === undefined ? number : number.default(fallback));
};

/**
 * A whole number a person types into a form field or a command-line option (a key's
 * limits): as `wholeNumberText`, but out of range it hears its bounds with their digits
 * grouped ("must be at most 1,000,000,000"), easier to read than the schema's digits
 * (`issueInWords`), which an agent copies.
 */
export const wholeNumberField = (min: number, max: number) => {
  const whole = "must be a whole number";
  // A field left empty (the dashboard's) or a member left out is missing, not a wrong number.
  const missing = (input: unknown) =>
    input === undefined || (typeof input === "string" && input.trim() === "");
  const number = z
    .number({
      error: (issue) =>
        issue.code !== "invalid_type"
          ? undefined
          : missing(issue.input)
            ? "is required (a whole number)"
            : whole,
    })
    .min(min, { message: `must be at least ${min.toLocaleString("en-US")}`, abort: true })
    .max(max, { message: `must be at most ${max.toLocaleString("en-US")}`, abort: true })
    .int({ message: whole });
  return z.preprocess(fromDigits, number);
};
