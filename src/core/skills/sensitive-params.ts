import { z } from "zod";
import { isCredentialName, REDACTED, urlWithoutCredentials } from "./credential-names.js";

/**
 * How a param carries credentials, and so what of it is masked once they are no longer
 * needed (see `redactedParams`):
 * - `value`: the whole value is one (a password, a token);
 * - `entries`: a record of names to values (HTTP headers, form fields): the values under
 *   credential names (`Authorization`, `X-Api-Key`, `*-Token`: `isCredentialName`);
 * - `url`: a URL: its user information and the query values under credential names.
 */
export type ParamSensitivity = "value" | "entries" | "url";

/**
 * The params schemas marked sensitive. A registry of its own, not zod's global one that
 * `.meta()` writes to: the mark is for the service, and stays out of the JSON Schema
 * agents read.
 */
const sensitiveSchemas = z.registry<{ sensitive: ParamSensitivity }>();

/**
 * Marks a param of a skill's params schema as carrying credentials: once an execution can
 * no longer start, what `sensitivity` names is masked in its stored params, and nothing
 * shows it (README, "What is kept of an execution"). Mark the schema as the params object
 * holds it (after `.describe()`, `.default()` and the like: each makes a new schema) or
 * one it wraps.
 */
export function sensitive<T extends z.ZodType>(schema: T, sensitivity: ParamSensitivity): T {
  sensitiveSchemas.add(schema, { sensitive: sensitivity });
  return schema;
}

/**
 * `params` as `schema` parsed them, with what its sensitive params hold masked (the rule of
 * `ParamSensitivity`), into nested objects and arrays. A new value; `params` is unchanged.
 */
export function redactedParams(schema: z.ZodType, params: unknown): unknown {
  return marksAnything(schema) ? maskedParams(schema, params) : params;
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
    }
    marked.set(schema, known);
  }
  return known;
}

function maskedParams(schema: z.ZodType, params: unknown): unknown {
  for (let layer: z.ZodType | undefined = schema; layer !== undefined; layer = wrappedBy(layer)) {
    const sensitivity = sensitiveSchemas.get(layer)?.sensitive;
    if (sensitivity !== undefined) return masked(sensitivity, params);
    if (layer instanceof z.ZodObject && isPlainRecord(params)) {
      const shape = layer.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(params).map(([name, value]) => {
          const member = Object.hasOwn(shape, name) ? shape[name] : undefined;
          return [name, member === undefined ? value : maskedParams(member, value)];
        }),
      );
    }
    if (layer instanceof z.ZodArray && Array.isArray(params)) {
      const element = layer.element as z.ZodType;
      return params.map((item) => maskedParams(element, item));
    }
  }
  return params;
}

function masked(sensitivity: ParamSensitivity, value: unknown): unknown {
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
