import type { z } from "zod";
import { isPlainRecord } from "../schema-layers.js";

export type CheckedResult =
  | { success: true; result: Record<string, unknown> }
  | { success: false; issues: z.ZodError["issues"] };

/**
 * Checks a skill's output against its result schema and gives back the output itself
 * when the schema only checks it. Zod builds its parsed value by assignment and leaves
 * out every key named "__proto__" (it would set the copy's prototype), so returning the
 * parsed value silently dropped, say, a CSV column of that name from every row. The
 * parsed value is returned instead only when it differs otherwise, i.e. the schema
 * transformed, defaulted or stripped something: then it is what the skill declared.
 * (A "__proto__" key the schema does not declare passes too: this cannot tell the two
 * apart without walking the schema, and it is the skill's own data, not a prototype.)
 * An own "__proto__" key is safe to pass on: JSON.stringify writes it, and JSON.parse,
 * spread and structured clone make it an own property again, never a prototype.
 */
export function checkResult(schema: z.ZodType, output: unknown): CheckedResult {
  const parsed = schema.safeParse(output);
  if (!parsed.success) return { success: false, issues: parsed.error.issues };
  const result = isOutputLessProtoKeys(output, parsed.data) ? output : parsed.data;
  return { success: true, result: result as Record<string, unknown> };
}

/** Whether `parsed` holds exactly `output`'s values, bar the "__proto__" keys zod leaves out. */
function isOutputLessProtoKeys(output: unknown, parsed: unknown): boolean {
  // Zod passes unknown() values and primitives through as they are.
  if (output === parsed) return true;
  if (Array.isArray(output)) {
    return (
      Array.isArray(parsed) &&
      output.length === parsed.length &&
      output.every((item, index) => isOutputLessProtoKeys(item, parsed[index]))
    );
  }
  if (!isPlainRecord(output) || !isPlainRecord(parsed)) return false;
  const keys = Object.keys(output).filter((key) => key !== "__proto__");
  return (
    keys.length === Object.keys(parsed).length &&
    keys.every((key) => Object.hasOwn(parsed, key) && isOutputLessProtoKeys(output[key], parsed[key]))
  );
}
