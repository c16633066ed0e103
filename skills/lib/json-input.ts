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
