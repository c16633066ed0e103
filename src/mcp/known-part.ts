import type { z } from "zod";

/** The zod definition members `knownPart` reads (zod 4 keeps them on `_zod.def`). */
interface Definition {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
}

const WRAPPERS = new Set(["nullable", "optional", "default", "prefault", "nonoptional", "readonly", "catch"]);

/**
 * The part of `value` that `schema` names: object members it does not declare, and keys of a
 * record keyed by a list of values (e.g. the matched fields of a discover) that are not in
 * the list, are left out, at any depth. What a server of a later version adds is dropped
 * this way, where parsing would refuse the whole answer for it. Values are not checked here.
 */
export function knownPart(schema: z.ZodType, value: unknown): unknown {
  const def = (schema as unknown as { _zod: { def: Definition } })._zod.def;
  if (WRAPPERS.has(def.type) && def.innerType) return knownPart(def.innerType, value);
  if (def.type === "pipe" && def.in) return knownPart(def.in, value);
  if (def.type === "array" && def.element && Array.isArray(value)) {
    const element = def.element;
    return value.map((item) => knownPart(element, item));
  }
  if (!isPlainObject(value)) return value;
  if (def.type === "object" && def.shape) {
    const known: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(def.shape)) {
      if (Object.hasOwn(value, name)) known[name] = knownPart(member, value[name]);
    }
    return known;
  }
  if (def.type === "record" && def.keyType && def.valueType) {
    const keys = (def.keyType as unknown as { _zod: { values?: Set<unknown> } })._zod.values;
    const known: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (keys === undefined || keys.has(key)) known[key] = knownPart(def.valueType, item);
    }
    return known;
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
