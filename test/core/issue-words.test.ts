import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "../../src/core/errors.js";
import { parseOrThrow, safeParseInWords } from "../../src/core/validation.js";

/** The message a refusal of `input` by `schema` carries at `path`, as the contract's details say it. */
function refusal(schema: z.ZodType, input: unknown): Record<string, string> {
  try {
    parseOrThrow(schema, input);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return Object.fromEntries((err.details ?? []).map((detail) => [detail.path, detail.message]));
  }
  throw new Error("the input was accepted");
}

describe("a refused value is told in plain words, not zod's", () => {
  it("says which type a value must be and which it was, or that it is required", () => {
    const schema = z.object({
      text: z.string(),
      count: z.number(),
      whole: z.number().int(),
      flag: z.boolean(),
      list: z.array(z.string()),
      nested: z.object({ a: z.string() }),
      map: z.record(z.string(), z.number()),
      either: z.union([z.string(), z.number()]),
    });
    expect(
      refusal(schema, {
        text: 5,
        count: "5",
        whole: 1.5,
        flag: "true",
        list: {},
        nested: [],
        map: '{"a":1}',
      }),
    ).toEqual({
      text: "must be a string, not a number",
      count: "must be a number, not a string",
      whole: "must be a whole number",
      flag: "must be true or false, not a string",
      list: "must be an array, not an object",
      nested: "must be an object, not an array",
      map: "must be a JSON object, not a string holding JSON",
      either: "is required (a string or a number)",
    });
    expect(refusal(schema, { text: null })).toMatchObject({ text: "must be a string, not null" });
    // A form field read with Number() is NaN when it holds no number.
    expect(refusal(schema, { count: Number.NaN })).toMatchObject({ count: "must be a number, not NaN" });
    expect(refusal(schema, {})).toMatchObject({
      text: "is required (a string)",
      nested: "is required (an object)",
    });
  });

  it("says the bounds of a length or a number with their unit", () => {
    const schema = z.object({
      name: z.string().min(1).max(3),
      code: z.string().length(2),
      tags: z.array(z.string()).min(1).max(2),
      limit: z.number().min(1).max(1_000_000_000),
      ratio: z.number().gt(0).lt(1),
      step: z.number().multipleOf(5),
    });
    expect(refusal(schema, { name: "", code: "abc", tags: [], limit: 0, ratio: 0, step: 7 })).toEqual({
      name: "must be at least 1 character long",
      code: "must be exactly 2 characters long",
      tags: "must have at least 1 item",
      limit: "must be at least 1",
      ratio: "must be more than 0",
      step: "must be a multiple of 5",
    });
    expect(
      refusal(schema, { name: "abcd", code: "ab", tags: ["a", "b", "c"], limit: 2e9, ratio: 1, step: 5 }),
    ).toEqual({
      name: "must be at most 3 characters long",
      tags: "must have at most 2 items",
      limit: "must be at most 1000000000",
      ratio: "must be less than 1",
    });
  });

  it("lists the choices of an enum and names the one value of a literal", () => {
    const schema = z.object({ plan: z.enum(["free", "pro"]), kind: z.literal("fixed") });
    expect(refusal(schema, { plan: "gold", kind: "x" })).toEqual({
      plan: "must be one of: free, pro",
      kind: 'must be "fixed"',
    });
  });

  it("says the form a formatted string must take", () => {
    const schema = z.object({
      day: z.iso.date(),
      at: z.iso.datetime(),
      link: z.url(),
      prefixed: z.string().startsWith("sk_"),
      digits: z.string().regex(/^\d+$/),
    });
    expect(refusal(schema, { day: "x", at: "x", link: "x", prefixed: "x", digits: "x" })).toEqual({
      day: "must be a date (2024-01-31)",
      at: "must be an ISO 8601 date-time (2024-01-31T12:00:00Z)",
      link: "must be a URL",
      prefixed: 'must start with "sk_"',
      digits: "must match the pattern /^\\d+$/",
    });
  });

  it("says a member the object does not take is not allowed here, and the name meant", () => {
    const schema = z.strictObject({ expression: z.string(), data: z.unknown() });
    expect(refusal(schema, { expresion: "a", data: 1, zzz: 1 })).toEqual({
      expression: 'is required (a string); "expresion" is not a member: did you mean "expression"?',
      expresion: 'is not allowed here; did you mean "expression"?',
      zzz: 'is not allowed here; this object takes "expression", "data"',
    });
  });

  it("tells a null for an optional member that leaving it out gives the default", () => {
    expect(refusal(z.object({ limit: z.number().optional() }), { limit: null })).toEqual({
      limit: "must be a number, not null; omit it to use the default",
    });
  });

  it("keeps a message a schema sets itself", () => {
    const schema = z.object({ port: z.number({ error: "must be a port number" }) });
    expect(refusal(schema, { port: "x" })).toEqual({ port: "must be a port number" });
  });

  it("words every issue of a parse someone reads outside the details too", () => {
    const parsed = safeParseInWords(z.strictObject({ a: z.string() }), { a: 1, b: 2 });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      "must be a string, not a number",
      '"b" is not allowed here',
    ]);
  });
});

describe("a missing field that takes set values", () => {
  it("is told it is required, naming the values, not that it must be one of them", () => {
    const schema = z.object({ to: z.enum(["utf-8", "hex"]), kind: z.literal("a"), mode: z.enum(["x", "y"]) });
    expect(refusal(schema, { mode: "z" })).toEqual({
      to: "is required (one of: utf-8, hex)",
      kind: 'is required ("a")',
      mode: "must be one of: x, y",
    });
  });
});
