import type { DescriptionRecord } from "../core/discovery/document.js";
import type { LabelledQuery } from "../core/discovery/evaluate.js";
import type { JsonSchema } from "../core/skills/registry.js";

/** Fields a tool line may have that are not free text for the `extra` field. */
const STRUCTURED_FIELDS = new Set([
  "id",
  "name",
  "title",
  "description",
  "params",
  "inputSchema",
  "input_schema",
  "tags",
  "category",
  "examples",
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return value.trim() ? [value] : [];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

/**
 * One line of a tools file (`../shared/data` format, `{id, name, description, params}`,
 * with whatever else a source adds) as a description-only skill: `params` (or an MCP
 * `inputSchema`) is the JSON Schema, `tags` and `category` become tags, and every other
 * string field (`description_for_model`, `api_title`, `server`, …) is extra text, weighed
 * least. Nothing here knows a particular data set: any folder in this format works.
 */
export function toolRecord(line: unknown, lineNumber: number): DescriptionRecord {
  if (!isRecord(line)) throw new Error(`tool ${lineNumber}: expected a JSON object`);
  const id =
    typeof line.id === "string" && line.id ? line.id : typeof line.name === "string" ? line.name : "";
  if (!id) throw new Error(`tool ${lineNumber}: needs a string "id" (or "name")`);
  const schema = [line.params, line.inputSchema, line.input_schema].find(isRecord);
  const extra = Object.entries(line)
    .filter(([field]) => !STRUCTURED_FIELDS.has(field))
    .flatMap(([, value]) => strings(value))
    .join("\n");
  const name = strings(line.name)[0] ?? strings(line.title)[0] ?? null;
  return {
    id,
    name,
    description: strings(line.description).join("\n"),
    params: (schema as JsonSchema | undefined) ?? null,
    tags: [...strings(line.tags), ...strings(line.category)],
    examples: strings(line.examples),
    extra: extra || null,
  };
}

/** One line of a queries file: `{id?, query, relevant: [tool ids]}`. */
export function labelledQuery(line: unknown, lineNumber: number): LabelledQuery {
  if (!isRecord(line) || typeof line.query !== "string" || !Array.isArray(line.relevant)) {
    throw new Error(`query ${lineNumber}: expected {"query": string, "relevant": [ids]}`);
  }
  return { query: line.query, relevant: strings(line.relevant) };
}
