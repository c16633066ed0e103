import type { z } from "zod";

/**
 * The schema a wrapper holds (`.optional()`, `.default()`, `.nullable()`, `.readonly()`,
 * `.catch()`, a pipe's input); undefined for any other schema. Code that walks a schema
 * beside a value (masking credentials, keeping the known part of an answer) peels these
 * to reach the object, record or array beneath.
 */
export function wrappedBy(schema: z.ZodType): z.ZodType | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  return def.type === "pipe" ? def.in : def.innerType;
}

/** The schema beneath every wrapper of `schema` (`schema` itself when it has none). */
export function innermost(schema: z.ZodType): z.ZodType {
  let inner = schema;
  for (let wrapped = wrappedBy(inner); wrapped; wrapped = wrappedBy(inner)) inner = wrapped;
  return inner;
}

/** A JSON object: neither null nor an array. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
