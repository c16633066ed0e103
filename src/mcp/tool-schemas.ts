import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { withoutDialect } from "../core/json-schema-dialect.js";

/**
 * A JSON Schema as a tool's `inputSchema` or `outputSchema`: without `$schema`. MCP reads
 * a schema without one as 2020-12, the dialect zod writes (2025-11-25, "JSON Schema
 * Usage": "When a schema does not include a `$schema` field, it defaults to JSON Schema
 * 2020-12"), so it says nothing there; while a client that hands a tool's schema as it is
 * to an LLM API taking only a subset of JSON Schema fails the whole request on it (Gemini's
 * `FunctionDeclaration.parameters`: `Unknown name "$schema"`). A skill's schemas keep it
 * on `/v1`, where no such default applies.
 */
export function toolSchema(schema: Record<string, unknown>): Tool["inputSchema"] {
  return withoutDialect(schema) as Tool["inputSchema"];
}
