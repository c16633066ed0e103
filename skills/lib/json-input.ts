import { z } from "zod";

/**
 * A required param holding any JSON value. `z.unknown()` keeps the JSON Schema a plain
 * `{}` (a recursive JSON type confuses some LLM tool-schema consumers), and the refine
 * makes a missing member an error, which `z.unknown()` alone would accept.
 */
export function anyJson(description: string) {
  return z
    .unknown()
    .refine((value) => value !== undefined, "Required: any JSON value")
    .describe(description);
}

/**
 * The document a JSON param means. An agent chaining skills passes JSON text as it got it
 * (http.request's `body` is a string), and JMESPath on a string finds no field, so every
 * query answered null without a word. A string that starts with { or [ and parses is
 * read as the JSON it holds; any other string (a plain word, "42") stays a string.
 */
export function parseJsonText(value: unknown): unknown {
  const text = jsonLikeText(value);
  if (text === undefined) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return value;
  }
}

/**
 * Why a string that starts as JSON text does (an object or array) is not JSON, in
 * JSON.parse's words ("Unexpected end of JSON input"), or undefined for any other value.
 * Such a string is most often a document cut short (http.request's `body` beyond
 * max_bytes), which `parseJsonText` leaves a string, where every field is null.
 */
export function jsonTextProblem(value: unknown): string | undefined {
  const text = jsonLikeText(value);
  if (text === undefined) return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : "not JSON";
  }
}

function jsonLikeText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  return text.startsWith("{") || text.startsWith("[") ? text : undefined;
}
