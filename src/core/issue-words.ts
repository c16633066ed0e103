import type { z } from "zod";

/**
 * The one place a refusal of input is worded: a zod error map that says each issue as the
 * end of a sentence about the value (`must be a number, not a string`), in the words of the
 * JSON a caller sends, for every surface that shows it (REST `details`, MCP `isError`
 * texts, the CLI, the dashboard's forms, configuration errors). zod's own texts
 * (`Too small: expected string to have >=1 characters`) speak to the schema's author.
 * Passed per parse (`safeParseInWords`), so that a message a schema sets itself still
 * wins, and a skill module's own copy of zod words its refusals the same way.
 */
export function issueInWords(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return typeMessage([issue.expected], issue.input);
    case "invalid_union":
      return unionMessage(issue);
    case "invalid_value":
      return valueMessage(issue.values, issue.input);
    case "too_small":
      return sizeMessage("at least", "more than", issue.minimum, issue);
    case "too_big":
      return sizeMessage("at most", "less than", issue.maximum, issue);
    case "invalid_format":
      return formatMessage(issue);
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys": {
      const names = issue.keys.map((key) => JSON.stringify(key)).join(", ");
      return issue.keys.length > 1 ? `${names} are not allowed here` : `${names} ${NOT_ALLOWED_HERE}`;
    }
    case "invalid_key":
      return "has a member name it does not take";
    case "invalid_element":
      return "holds a value it does not take";
    default:
      return "is not valid";
  }
}

/**
 * A value other than the ones a field takes. A missing one is told it is required, as a
 * missing value of any type is (`is required (a string)`): "must be one of" read as if a
 * value had been sent, and the caller looked for a wrong one.
 */
function valueMessage(values: readonly unknown[], input: unknown): string {
  const allowed =
    values.length === 1 ? JSON.stringify(values[0]) : `one of: ${values.map(valueInWords).join(", ")}`;
  return input === undefined ? `is required (${allowed})` : `must be ${allowed}`;
}

/** A member an object does not take, as every surface says it (the name it meant follows). */
export const NOT_ALLOWED_HERE = "is not allowed here";

const JSON_TEXT_FOR_OBJECT = "must be a JSON object, not a string holding JSON";

/** zod's name of a type, as a JSON value of it is called. */
const TYPE_IN_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "an array",
  tuple: "an array",
  null: "null",
  date: "a date",
};

/**
 * A value of none of the `expected` types: missing (`is required (a string)`), or sent as
 * another type, named (`must be a number, not a string`). An object sent as a string of
 * JSON, a slip agents make often, is told so.
 */
function typeMessage(expected: readonly string[], input: unknown): string {
  const wanted = [...new Set(expected.map((type) => TYPE_IN_WORDS[type] ?? `a ${type}`))].join(" or ");
  if (input === undefined) return `is required (${wanted})`;
  const objectExpected = expected.includes("object") || expected.includes("record");
  if (objectExpected && typeof input === "string" && holdsJsonObject(input)) return JSON_TEXT_FOR_OBJECT;
  // A fraction where a whole number goes is a number still: "not a number" would mislead.
  if (expected.includes("int") && typeof input === "number") return `must be ${wanted}`;
  return `must be ${wanted}, not ${jsonTypeOf(input)}`;
}

/**
 * zod says only "Invalid input" when a value is of none of a union's types (a missing
 * `time`, which takes a string or a number): said as for a single type, naming each. When
 * an option refused the value for another reason, zod reports that option's own issue.
 */
function unionMessage(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidUnion>): string {
  const { discriminator, options } = issue as { discriminator?: string; options?: readonly unknown[] };
  if (options && options.length > 0) {
    const values = options.map(valueInWords).join(", ");
    return discriminator
      ? `must have "${discriminator}" set to one of: ${values}`
      : `must be one of: ${values}`;
  }
  if (issue.inclusive === false) return "matches more than one of the forms it may take";
  const expected = issue.errors.map((optionIssues) => {
    const [only, ...more] = optionIssues;
    return only?.code === "invalid_type" && only.path.length === 0 && more.length === 0
      ? only.expected
      : undefined;
  });
  if (expected.length === 0 || expected.some((type) => type === undefined)) {
    return "matches none of the forms it may take";
  }
  return typeMessage(expected as string[], issue.input);
}

/** What counts a length, by what zod checked; a number's bound is its value's. */
const UNITS: Readonly<Record<string, readonly [string, string]>> = {
  string: ["character", "characters"],
  array: ["item", "items"],
  set: ["item", "items"],
  map: ["entry", "entries"],
  file: ["byte", "bytes"],
};

function sizeMessage(
  inclusiveWord: string,
  exclusiveWord: string,
  bound: number | bigint,
  issue: { origin: string; inclusive?: boolean; exact?: boolean },
): string {
  // Digits as the contract and the schema write them (300000), for a caller to copy.
  const limit = bound.toString();
  const bounded = issue.exact ? "exactly" : issue.inclusive === false ? exclusiveWord : inclusiveWord;
  const unit = UNITS[issue.origin];
  if (!unit) return `must be ${bounded} ${limit}`;
  const counted = `${limit} ${bound === 1 || bound === 1n ? unit[0] : unit[1]}`;
  return issue.origin === "string" ? `must be ${bounded} ${counted} long` : `must have ${bounded} ${counted}`;
}

/** A string format, as the value it must be (an example where its form is not obvious). */
const FORMAT_IN_WORDS: Readonly<Record<string, string>> = {
  date: "a date (2024-01-31)",
  datetime: "an ISO 8601 date-time (2024-01-31T12:00:00Z)",
  time: "a time of day (12:00:00)",
  duration: "an ISO 8601 duration (P3D)",
  email: "an email address",
  url: "a URL",
  uuid: "a UUID",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  cidrv4: "an IPv4 range",
  cidrv6: "an IPv6 range",
  base64: "base64 text",
  base64url: "base64url text",
  lowercase: "lowercase",
  uppercase: "uppercase",
};

function formatMessage(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidStringFormat>): string {
  const { format } = issue;
  const given = issue as { prefix?: string; suffix?: string; includes?: string; pattern?: string };
  if (format === "starts_with") return `must start with ${JSON.stringify(given.prefix)}`;
  if (format === "ends_with") return `must end with ${JSON.stringify(given.suffix)}`;
  if (format === "includes") return `must contain ${JSON.stringify(given.includes)}`;
  if (format === "regex") return `must match the pattern ${given.pattern}`;
  return `must be ${FORMAT_IN_WORDS[format] ?? `a valid ${format}`}`;
}

/** A choice as a person would type it: a plain word bare, anything else as JSON. */
function valueInWords(value: unknown): string {
  return typeof value === "string" && /^[\w.:/+-]+$/.test(value) ? value : String(JSON.stringify(value));
}

/** The JSON type of a value, with its article (`not an array`). */
function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  // NaN and the infinities are numbers to JavaScript, no number to the person told.
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return ["string", "number", "boolean"].includes(typeof value) ? `a ${typeof value}` : typeof value;
}

function holdsJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
