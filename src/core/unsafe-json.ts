import { ServiceError } from "./errors.js";
import { jsonFaultInWords } from "./json-syntax.js";

/**
 * What `JSON.parse` reads from valid JSON that no surface may pass on, refused alike by every
 * reader of JSON text a caller sends (a `/v1` or `/mcp` body, an MCP stdio line), so that the
 * same call gets the same answer however it came:
 * - a member named `__proto__`, or a `constructor` member holding a `prototype` member:
 *   `JSON.parse` makes them plain members, but code that copies members by assignment (a deep
 *   merge in a skill or a library it uses) sets an object's prototype with them, and zod's
 *   own object and record parsing drops `__proto__` without a word, so such a member could
 *   never be kept as the data it was sent as at every depth;
 * - a number beyond what a double holds (`1e400`): `JSON.parse` makes it Infinity, which the
 *   skill would run with, and which JSON cannot carry on (stored, or relayed by `mcp
 *   --remote`, it became `null`).
 * Numbers JSON holds only approximately (`12345678901234567890`, `-0`) are read as
 * JavaScript reads them, on every surface.
 */

/**
 * JSON text a caller sent, as every surface reads it: its value; or, when it is no JSON,
 * where and why in words (`jsonFaultInWords`, undefined when no fault is found); or, when its
 * value holds what this module refuses, the refusal (`unsafeJsonError`).
 */
export type CallerJson =
  | { kind: "json"; value: unknown }
  | { kind: "not json"; fault: string | undefined }
  | { kind: "refused"; value: unknown; error: ServiceError };

/** Reads `text` by the one rule of JSON from callers (see `CallerJson`). */
export function readCallerJson(text: string): CallerJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "not json", fault: jsonFaultInWords(text) };
  }
  const error = unsafeJsonError(text, value);
  return error ? { kind: "refused", value, error } : { kind: "json", value };
}

/** A key spelled `__proto__`, literally or with `\u` escapes (as secure-json-parse looks for it). */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const CONSTRUCTOR_KEY =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;
/** A number that may overflow: an exponent of three digits or more, or 309 digits in a row. */
const LARGE_NUMBER = /[eE]\+?0*[1-9]\d{2}|\d{309}/;

const FORBIDDEN_PROTO =
  "a forbidden key (__proto__: in JavaScript it names an object's prototype, not a member); rename it";
const FORBIDDEN_CONSTRUCTOR =
  "a forbidden key (constructor with a prototype key inside: in JavaScript the two name an object's prototype); rename one";

/**
 * The refusal of `value`, parsed from `text`, when it holds what this module refuses (the
 * first such place, in document order, as `{path, message}`); undefined otherwise. The text
 * is looked at first, so that the value is walked only when it may hold one.
 */
export function unsafeJsonError(text: string, value: unknown): ServiceError | undefined {
  if (typeof value !== "object" || value === null) return nonFiniteError(value, undefined);
  if (!PROTO_KEY.test(text) && !CONSTRUCTOR_KEY.test(text) && !LARGE_NUMBER.test(text)) return undefined;
  // Depth first, children in order, with an explicit stack: any depth, the first place found.
  // Each item links to its parent's place rather than copying a path: a deep document costs
  // no more to walk than a wide one.
  const pending: { value: unknown; at: Place | undefined }[] = [{ value, at: undefined }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value: node, at } = item;
    if (typeof node !== "object" || node === null) {
      const refused = nonFiniteError(node, at);
      if (refused) return refused;
      continue;
    }
    if (Object.hasOwn(node, "__proto__")) return refusal({ key: "__proto__", up: at }, FORBIDDEN_PROTO);
    const constructorMember = (node as { constructor?: unknown }).constructor;
    if (
      Object.hasOwn(node, "constructor") &&
      isObject(constructorMember) &&
      Object.hasOwn(constructorMember, "prototype")
    ) {
      return refusal({ key: "constructor", up: at }, FORBIDDEN_CONSTRUCTOR);
    }
    const keys = Object.keys(node);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      pending.push({ value: (node as Record<string, unknown>)[key], at: { key, up: at } });
    }
  }
  return undefined;
}

/** A place in the document: its key, and its parent's place (none at the root). */
interface Place {
  key: string;
  up: Place | undefined;
}

/** Keys named of a deeper place: the last ones, where the refused member is. */
const MAX_KEYS_NAMED = 12;

/** A place as the contract's details name one (`params.data.__proto__`), its last keys only when deep. */
function placeInWords(place: Place | undefined): string {
  const keys: string[] = [];
  let depth = 0;
  for (let at = place; at !== undefined; at = at.up, depth++) {
    if (depth < MAX_KEYS_NAMED) keys.unshift(at.key);
  }
  if (keys.length === 0) return "(root)";
  return depth > MAX_KEYS_NAMED ? `….${keys.join(".")}` : keys.join(".");
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function nonFiniteError(value: unknown, at: Place | undefined): ServiceError | undefined {
  if (typeof value !== "number" || Number.isFinite(value)) return undefined;
  return refusal(
    at,
    "a number too large to be read as one (beyond about ±1.8e308); send it as a string, or smaller",
  );
}

function refusal(at: Place | undefined, message: string): ServiceError {
  const where = placeInWords(at);
  return new ServiceError("invalid_request", {
    message: `${where}: ${message}`,
    details: [{ path: where, message }],
  });
}
