import { z } from "zod";
import { isPlainRecord, wrappedBy } from "../schema-layers.js";
import { isCredentialName, REDACTED } from "./credential-names.js";
import { headerValueWithoutCredentials } from "./header-credentials.js";
import { urlWithoutCredentials } from "./url-credentials.js";

/**
 * How a param, or a member of a result, carries credentials, and so what of it is masked
 * once they are no longer needed (see `redactedBySchema`):
 * - `value`: the whole value is one (a password, a token);
 * - `entries`: a record of names to values (HTTP headers, form fields): the values under
 *   credential names (`Authorization`, `X-Api-Key`, `*-Token`: `isCredentialName`);
 * - `url`: a URL: its user information and the query values under credential names, and
 *   those of the URLs nested in it, percent-encoded or not (`urlWithoutCredentials`, the
 *   rule of every URL kept or logged; text that is no URL is kept as it is);
 * - `headers`: a record of response header names to values: the URLs each value holds,
 *   judged by the header's name (`headerValueWithoutCredentials`): a `Link` link by link,
 *   its `<>`, quotes, params and other links kept; any other value as a `url`.
 */
export type Sensitivity = "value" | "entries" | "url" | "headers";

/** Every `Sensitivity`: a skill in JS (or one cast) may pass any string to `sensitive`. */
const SENSITIVITIES: ReadonlySet<string> = new Set<Sensitivity>(["value", "entries", "url", "headers"]);

/**
 * The params and result schemas marked sensitive, and the ones declared `notSensitive`
 * (false). A registry of its own, not zod's global one that `.meta()` writes to: the mark
 * is for the service, and stays out of the JSON Schema agents read. A registry's `get`
 * reads through the clones zod makes of a schema (`.describe()`, `.meta()`, and checks such
 * as `.min()` or `.refine()` set the clone's parent), so what is chained after `sensitive`
 * keeps its mark; `markOf` relies on it, and a test holds zod to it.
 */
const sensitiveSchemas = z.registry<{ sensitive: Sensitivity | false }>();

/**
 * Marks a param of a skill's params schema as carrying credentials: once an execution can
 * no longer start, what `sensitivity` names is masked in its stored params, and nothing
 * shows it (README, "What is kept of an execution"). Marked in the result schema, a member
 * that repeats what the params carry (the URL a request ended at) is masked the same way
 * in the record, as soon as the execution ends. The mark holds through what is chained
 * after it (`.describe()`, `.min()`, `.optional()`, `.default()`, `.array()`,
 * `.transform()`); a mark that masking cannot reach (inside a union, an intersection, a
 * tuple, a lazy schema: mark that one as a whole) stops the skill's registration, and so
 * start-up (`sensitiveMarkProblems`).
 */
export function sensitive<T extends z.ZodType>(schema: T, sensitivity: Sensitivity): T {
  sensitiveSchemas.add(schema, { sensitive: sensitivity });
  return schema;
}

/**
 * Declares that a param whose name reads like a credential's (`isCredentialName`: the
 * `key` of `memory.set`, which names an entry) carries none, so it is kept as it is and its
 * skill may register unmarked (`sensitiveMarkProblems`).
 */
export function notSensitive<T extends z.ZodType>(schema: T): T {
  sensitiveSchemas.add(schema, { sensitive: false });
  return schema;
}

/** The mark on this very schema, or on the one zod cloned it from; false: `notSensitive`. */
function markOf(schema: z.ZodType): Sensitivity | false | undefined {
  return sensitiveSchemas.get(schema)?.sensitive;
}

/**
 * `value` (params or a result) as `schema` describes it, with what its sensitive members
 * hold masked (the rule of `Sensitivity`), into nested objects, arrays and records. A new
 * value when a schema marks anything; `value` is unchanged.
 */
export function redactedBySchema(schema: z.ZodType, value: unknown): unknown {
  return marksAnything(schema) ? maskedBySchema(schema, value) : value;
}

/** Whether any schema `schema` holds is marked, per schema (most skills mark none). */
const marked = new WeakMap<z.ZodType, boolean>();

function marksAnything(schema: z.ZodType): boolean {
  let known = marked.get(schema);
  if (known === undefined) {
    const mark = markOf(schema);
    known =
      mark === undefined
        ? partsOf(schema).some(({ part, masked }) => masked && marksAnything(part))
        : mark !== false;
    marked.set(schema, known);
  }
  return known;
}

/** A schema `layer` holds, and whether masking looks into it. */
interface Part {
  part: z.ZodType;
  /** Set for a member of an object. */
  name?: string;
  /** What it adds to a path: `.name` for a member, `[]` for an array's element, `.*` for a record's values. */
  step: string;
  masked: boolean;
}

/**
 * Every schema `layer` holds, whatever its kind. Masking looks into those `maskedBySchema`
 * reads: the schema a wrapper holds (`wrappedBy`), an object's members, an array's element,
 * a record's values; not into an option of a union, a side of an intersection, an item of
 * a tuple, a lazy schema, a pipe's output, an object's catchall or a record's keys.
 */
function partsOf(layer: z.ZodType): Part[] {
  if (layer instanceof z.ZodLazy) return [{ part: layer.unwrap() as z.ZodType, step: "", masked: false }];
  const def = layer._zod.def as unknown as Record<string, unknown>;
  const wrapped = wrappedBy(layer);
  const parts: Part[] = [];
  for (const [key, held] of Object.entries(def)) {
    if (key === "shape" && def.type === "object") {
      for (const [name, member] of Object.entries(held as Record<string, z.ZodType>))
        parts.push({ part: member, name, step: `.${name}`, masked: true });
    } else if (isSchema(held)) {
      const element = def.type === "array" && key === "element";
      const values = def.type === "record" && key === "valueType";
      parts.push({
        part: held,
        step: element ? "[]" : values ? ".*" : "",
        masked: held === wrapped || element || values,
      });
    } else if (Array.isArray(held)) {
      for (const item of held) if (isSchema(item)) parts.push({ part: item, step: "", masked: false });
    }
  }
  return parts;
}

function isSchema(value: unknown): value is z.ZodType {
  return value instanceof z.core.$ZodType;
}

/**
 * What would leave a credential of a skill's params or result (`root` says which) in clear,
 * one sentence each, naming the member; none for most skills:
 * - a mark that names no sensitivity (`"header"`, retired for `"headers"`): masking would
 *   know nothing to do with the member;
 * - a mark masking does not reach (inside a union, an intersection, a tuple, a lazy schema,
 *   a pipe's output), or one under a schema declared `notSensitive`;
 * - in params, a member named like a credential (`isCredentialName`: `token`, `api_key`,
 *   `password`) neither marked, holding a mark nor declared `notSensitive`: a mark most
 *   likely forgotten. Not in a result, which may hand the caller a credential the skill
 *   made: masked, the caller would never get it.
 * The registry refuses a skill with any (`toCatalogSkill`), so start-up stops, naming them.
 */
export function sensitiveMarkProblems(schema: z.ZodType, root: "params" | "result"): string[] {
  const problems: string[] = [];
  // The schemas being walked: a recursive one (`z.lazy`, a getter) is walked once round.
  const walking = new Set<z.ZodType>();
  /**
   * `beyond`: where masking stopped looking on the way to `layer`, if it did; `checkNames`:
   * whether a member named like a credential must be marked there.
   */
  const walk = (layer: z.ZodType, path: string, beyond: string | undefined, checkNames: boolean): void => {
    const mark = markOf(layer);
    if (mark !== undefined && mark !== false) {
      if (!SENSITIVITIES.has(mark))
        problems.push(
          `${path} is marked sensitive as ${JSON.stringify(mark)}, which is no sensitivity: ` +
            `use "value", "entries", "url" or "headers"`,
        );
      if (beyond !== undefined) problems.push(`${path} is marked sensitive ${beyond}`);
      return;
    }
    if (walking.has(layer)) return;
    walking.add(layer);
    const { type } = layer._zod.def;
    for (const { part, name, step, masked } of partsOf(layer)) {
      const partBeyond =
        beyond ??
        (mark === false
          ? `under ${path}, which is declared notSensitive: keep one of the two`
          : masked
            ? undefined
            : `inside the ${type} at ${path}, which masking does not look into: mark the ${type} as a whole`);
      const partCheckNames = checkNames && mark !== false;
      if (
        partCheckNames &&
        name !== undefined &&
        isCredentialName(name) &&
        !marksAnything(part) &&
        !declaresNone(part)
      ) {
        const where = partBeyond === undefined ? "" : ` (it is ${partBeyond})`;
        problems.push(
          `${path}${step} is named like a credential but not marked: wrap its schema in sensitive(schema, ` +
            `"value" | "entries" | "url" | "headers")${where}, or in notSensitive(schema) if it carries none`,
        );
      }
      walk(part, path + step, partBeyond, partCheckNames);
    }
    walking.delete(layer);
  };
  walk(schema, root, undefined, root === "params");
  return problems;
}

/** Whether `schema`, or a schema it wraps, is declared `notSensitive`. */
function declaresNone(schema: z.ZodType): boolean {
  for (let layer: z.ZodType | undefined = schema; layer !== undefined; layer = wrappedBy(layer)) {
    const mark = markOf(layer);
    if (mark !== undefined) return mark === false;
  }
  return false;
}

function maskedBySchema(schema: z.ZodType, value: unknown): unknown {
  for (let layer: z.ZodType | undefined = schema; layer !== undefined; layer = wrappedBy(layer)) {
    const sensitivity = markOf(layer);
    if (sensitivity === false) return value;
    if (sensitivity !== undefined) return masked(sensitivity, value);
    if (layer instanceof z.ZodObject && isPlainRecord(value)) {
      const shape = layer.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(value).map(([name, member]) => {
          const memberSchema = Object.hasOwn(shape, name) ? shape[name] : undefined;
          return [name, memberSchema === undefined ? member : maskedBySchema(memberSchema, member)];
        }),
      );
    }
    if (layer instanceof z.ZodRecord && isPlainRecord(value)) {
      const valueType = layer.valueType as z.ZodType;
      return Object.fromEntries(
        Object.entries(value).map(([name, entry]) => [name, maskedBySchema(valueType, entry)]),
      );
    }
    if (layer instanceof z.ZodArray && Array.isArray(value)) {
      const element = layer.element as z.ZodType;
      return value.map((item) => maskedBySchema(element, item));
    }
  }
  return value;
}

function masked(sensitivity: Sensitivity, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  switch (sensitivity) {
    case "value":
      return REDACTED;
    case "entries":
      return isPlainRecord(value)
        ? Object.fromEntries(
            Object.entries(value).map(([name, entry]) => [name, isCredentialName(name) ? REDACTED : entry]),
          )
        : REDACTED;
    case "url":
      return typeof value === "string" ? urlWithoutCredentials(value) : REDACTED;
    case "headers":
      return isPlainRecord(value)
        ? Object.fromEntries(
            Object.entries(value).map(([name, entry]) => [
              name,
              typeof entry === "string" ? headerValueWithoutCredentials(name, entry) : REDACTED,
            ]),
          )
        : REDACTED;
    default:
      // A mark that names no sensitivity stops registration (`sensitiveMarkProblems`); were
      // one to get here, the value is masked whole rather than lost or shown.
      return REDACTED;
  }
}
