import { z } from "zod";

/** Wrappers whose `innerType` holds the schema the value is checked with. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/**
 * A skill's params schema with every object in it refusing members it does not name, at
 * any depth: the top level, an `options` object, the objects of an array, a record's
 * values, a union's options (a misnamed member of a nested object would otherwise be dropped
 * silently and its default used). zod drops unknown members by default. An object that
 * takes other members (`z.looseObject`, `.catchall(...)`) keeps them, and so does anything
 * under an intersection or a lazy schema, whose sides cannot be judged alone. Clones keep
 * their original as parent, so descriptions and credential marks (registries read through
 * clones) stay; a schema with nothing to change is returned as it is.
 */
export function strictParams<T extends z.ZodType>(schema: T): T {
  return strictened(schema) as T;
}

function strictened(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const changed = changedDef(def);
  return changed ? z.core.clone(schema, changed as typeof def, { parent: true }) : schema;
}

/** The definition with its parts made strict, or undefined when none changes. */
function changedDef(def: z.core.$ZodTypeDef & Record<string, unknown>): Record<string, unknown> | undefined {
  if (def.type === "object") {
    const shape = def.shape as Record<string, z.ZodType>;
    const strictShape = Object.fromEntries(
      Object.entries(shape).map(([key, member]) => [key, strictened(member)]),
    );
    const shapeChanged = Object.keys(shape).some((key) => strictShape[key] !== shape[key]);
    if (def.catchall !== undefined) return shapeChanged ? { ...def, shape: strictShape } : undefined;
    return { ...def, shape: strictShape, catchall: z.never() };
  }
  if (WRAPPERS.has(def.type)) return part(def, "innerType");
  if (def.type === "pipe") return part(def, "in");
  if (def.type === "array") return part(def, "element");
  if (def.type === "record") return part(def, "valueType");
  if (def.type === "union") {
    const options = def.options as z.ZodType[];
    const strictOptions = options.map(strictened);
    return strictOptions.some((option, index) => option !== options[index])
      ? { ...def, options: strictOptions }
      : undefined;
  }
  return undefined;
}

function part(def: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const inner = def[key] as z.ZodType;
  const strict = strictened(inner);
  return strict === inner ? undefined : { ...def, [key]: strict };
}
