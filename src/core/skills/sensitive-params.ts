import { z } from "zod";
import {
  headerValueWithoutCredentials,
  isCredentialName,
  REDACTED,
  urlWithoutCredentials,
} from "./credential-names.js";

/**
 * How a param, or a member of a result, carries credentials, and so what of it is masked
 * once they are no longer needed (see `redactedBySchema`):
 * - `value`: the whole value is one (a password, a token);
 * - `entries`: a record of names to values (HTTP headers, form fields): the values under
 *   credential names (`Authorization`, `X-Api-Key`, `*-Token`: `isCredentialName`);
 * - `url`: a URL: its user information and the query values under credential names
 *   (text that is no URL is kept as it is);
 * - `header`: an HTTP header value: a Link header's URLs and credential params each on
 *   their own, its `<>`, quotes and other params kept; any other value as a `url`
 *   (`headerValueWithoutCredentials`).
 */
export type Sensitivity = "value" | "entries" | "url" | "header";

/**
 * The params and result schemas marked sensitive. A registry of its own, not zod's global
 * one that `.meta()` writes to: the mark is for the service, and stays out of the JSON
 * Schema agents read.
 */
const sensitiveSchemas = z.registry<{ sensitive: Sensitivity }>();

/**
 * Marks a param of a skill's params schema as carrying credentials: once an execution can
 * no longer start, what `sensitivity` names is masked in its stored params, and nothing
 * shows it (README, "What is kept of an execution"). Marked in the result schema, a member
 * that repeats what the params carry (the URL a request ended at) is masked the same way
 * in the record, as soon as the execution ends. Mark the schema as the object, array or
 * record holds it (after `.describe()`, `.default()` and the like: each makes a new
 * schema) or one it wraps.
 */
export function sensitive<T extends z.ZodType>(schema: T, sensitivity: Sensitivity): T {
  sensitiveSchemas.add(schema, { sensitive: sensitivity });
  return schema;
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
    known = false;
    for (let layer: z.ZodType | undefined = schema; layer !== undefined && !known; layer = wrappedBy(layer)) {
      if (sensitiveSchemas.has(layer)) known = true;
      else if (layer instanceof z.ZodObject)
        known = Object.values(layer.shape as Record<string, z.ZodType>).some(marksAnything);
      else if (layer instanceof z.ZodArray) known = marksAnything(layer.element as z.ZodType);
      else if (layer instanceof z.ZodRecord) known = marksAnything(layer.valueType as z.ZodType);
    }
    marked.set(schema, known);
  }
  return known;
}

function maskedBySchema(schema: z.ZodType, value: unknown): unknown {
  for (let layer: z.ZodType | undefined = schema; layer !== undefined; layer = wrappedBy(layer)) {
    const sensitivity = sensitiveSchemas.get(layer)?.sensitive;
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
    case "header":
      return typeof value === "string" ? headerValueWithoutCredentials(value) : REDACTED;
  }
}

/**
 * The schema a wrapper holds (`.optional()`, `.default()`, `.nullable()`, `.readonly()`,
 * `.catch()`, a pipe's input), where a mark may sit; undefined for any other schema.
 */
function wrappedBy(schema: z.ZodType): z.ZodType | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  return def.type === "pipe" ? def.in : def.innerType;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
