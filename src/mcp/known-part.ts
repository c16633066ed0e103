import { z } from "zod";
import { isPlainRecord, wrappedBy } from "../core/schema-layers.js";

/**
 * The part of `value` that `schema` names: object members it does not declare, and keys of a
 * record keyed by a list of values (e.g. the matched fields of a discover) that are not in
 * the list, are left out, at any depth. What a server of a later version adds is dropped
 * this way, where parsing would refuse the whole answer for it. Values are not checked here.
 */
export function knownPart(schema: z.ZodType, value: unknown): unknown {
  for (let layer: z.ZodType | undefined = schema; layer !== undefined; layer = wrappedBy(layer)) {
    if (layer instanceof z.ZodObject && isPlainRecord(value)) {
      const shape = layer.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(shape)
          .filter(([name]) => Object.hasOwn(value, name))
          .map(([name, member]) => [name, knownPart(member, value[name])]),
      );
    }
    if (layer instanceof z.ZodRecord && isPlainRecord(value)) {
      // An enum of keys lists them (`_zod.values`); any string key has no such list.
      const keys = (layer.keyType as z.ZodType)._zod.values;
      const valueType = layer.valueType as z.ZodType;
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => keys === undefined || keys.has(key))
          .map(([key, entry]) => [key, knownPart(valueType, entry)]),
      );
    }
    if (layer instanceof z.ZodArray && Array.isArray(value)) {
      const element = layer.element as z.ZodType;
      return value.map((item) => knownPart(element, item));
    }
  }
  return value;
}
