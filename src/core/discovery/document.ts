import type { CatalogSkill, JsonSchema } from "../skills/registry.js";
import { normalizeTags } from "../skills/tags.js";

/**
 * The searchable fields of a skill. Each has its own weight and length normalisation in
 * BM25F (bm25f.ts) because a word in a skill's id or title says far more about what the
 * skill does than the same word in a parameter description.
 */
export const FIELD_NAMES = ["id", "title", "tags", "description", "params", "examples", "extra"] as const;

export type FieldName = (typeof FIELD_NAMES)[number];

/**
 * A skill as discovery sees it: raw text per field, not yet analysed, so that each
 * retriever (lexical now, embeddings later) can analyse it its own way.
 */
export interface SkillDocument {
  id: string;
  /** Lowercase tags, for the tags filter (not for scoring; the `tags` field is for that). */
  tags: readonly string[];
  fields: Readonly<Record<FieldName, string>>;
}

/**
 * A skill known only by its description, as evaluation data and outside catalogs have it
 * (e.g. `{id, name, description, params}` lines of a JSONL file).
 */
export interface DescriptionRecord {
  id: string;
  name?: string | null;
  description: string;
  /** JSON Schema of the params object, if any. */
  params?: JsonSchema | null;
  tags?: readonly string[] | null;
  /** Example requests, as `SkillExample.query`. */
  examples?: readonly string[] | null;
  /** Longer free text (e.g. instructions written for a model); weighed least. */
  extra?: string | null;
}

/**
 * How deep nested objects are read: `params.filter.since` is still a parameter an agent
 * might name; deeper levels are mostly transport detail.
 */
const MAX_SCHEMA_DEPTH = 2;
/** Enum values name choices a user may say ("celsius"); long enums are code lists, not words. */
const MAX_ENUM_VALUES = 20;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object schema whose `properties` describe a value: itself, or its array items. */
function objectSchemaOf(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  if (isRecord(schema.properties)) return schema;
  if (isRecord(schema.items) && isRecord(schema.items.properties)) return schema.items;
  return undefined;
}

function collectSchemaText(schema: Record<string, unknown>, depth: number, out: string[]): void {
  const object = objectSchemaOf(schema);
  if (!object || !isRecord(object.properties)) return;
  for (const [name, property] of Object.entries(object.properties)) {
    out.push(name);
    if (!isRecord(property)) continue;
    if (typeof property.title === "string") out.push(property.title);
    if (typeof property.description === "string") out.push(property.description);
    if (Array.isArray(property.enum) && property.enum.length <= MAX_ENUM_VALUES) {
      for (const value of property.enum) if (typeof value === "string") out.push(value);
    }
    if (depth < MAX_SCHEMA_DEPTH) collectSchemaText(property, depth + 1, out);
  }
}

/**
 * Parameter names, titles, descriptions and short enums of a params JSON Schema, walking
 * nested objects (and arrays of objects) up to two levels below the top.
 */
export function schemaText(schema: JsonSchema | null | undefined): string {
  if (!isRecord(schema)) return "";
  const out: string[] = [];
  if (typeof schema.description === "string") out.push(schema.description);
  collectSchemaText(schema, 1, out);
  return out.join("\n");
}

/** A catalog skill's searchable fields: id, title, description, tags, params, examples. */
export function skillToDocument(entry: CatalogSkill): SkillDocument {
  const { skill } = entry;
  return {
    id: skill.id,
    tags: normalizeTags(skill.tags),
    fields: {
      id: skill.id,
      title: skill.title,
      tags: skill.tags.join("\n"),
      description: skill.description,
      params: schemaText(entry.paramsSchema),
      examples: skill.examples.map((example) => example.query).join("\n"),
      extra: "",
    },
  };
}

/** A description-only record's searchable fields; `name` fills the title. */
export function recordToDocument(record: DescriptionRecord): SkillDocument {
  const tags = record.tags ?? [];
  return {
    id: record.id,
    tags: normalizeTags(tags),
    fields: {
      id: record.id,
      title: record.name ?? "",
      tags: tags.join("\n"),
      description: record.description,
      params: schemaText(record.params),
      examples: (record.examples ?? []).join("\n"),
      extra: record.extra ?? "",
    },
  };
}
