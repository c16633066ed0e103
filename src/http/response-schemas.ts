import { z } from "zod";
import type { DiscoverResponse, SkillDetail } from "../core/catalog-service.js";

/**
 * The bodies `/v1` answers with besides the execution record (which has its own schema in
 * the core), for the OpenAPI document. The types below fail to compile if the core's
 * answers stop fitting them, and a contract test validates live answers against the
 * document.
 */

const JsonSchemaObject = z.record(z.string(), z.unknown());

export const SkillSummarySchema = z.object({
  skill_id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  params: JsonSchemaObject.describe("JSON Schema of the params object POST /v1/execute takes"),
});

export const SkillDetailSchema = SkillSummarySchema.extend({
  result: JsonSchemaObject.describe("JSON Schema of the record's result when it completes"),
  annotations: z.object({
    readOnly: z.boolean(),
    destructive: z.boolean(),
    idempotent: z.boolean(),
    openWorld: z.boolean(),
    lightAsyncIo: z.boolean().optional(),
  }),
  examples: z.array(z.object({ query: z.string(), params: z.record(z.string(), z.unknown()) })),
});

export const DiscoverResponseSchema = z.object({
  query: z.string(),
  results: z.array(
    SkillSummarySchema.extend({
      score: z.number().describe("Higher is better, in (0, 1]; comparable within one answer"),
      match: z
        .object({
          lexical: z.number(),
          fields: z.record(z.string(), z.array(z.string())),
          semantic: z.number().optional(),
          usage: z
            .object({
              query: z.string(),
              count: z.number(),
              similarity: z.number().optional(),
              lexical: z.number(),
            })
            .optional(),
          named: z
            .literal(true)
            .optional()
            .describe("The query is this skill's id or its tool name: it ranks first, with score 1"),
        })
        .describe("Why the skill ranks where it does"),
    }),
  ),
  took_ms: z.number(),
  ranking: z.object({
    mode: z.enum(["hybrid", "lexical"]),
    semantic: z.enum(["ready", "loading", "failed", "off"]),
  }),
});

/** A cursor-paginated listing of `item`s. */
export function pageSchema(item: z.ZodType) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last"),
  });
}

/** Compiles only when every value of `Actual` is a value of `Described`. */
type Fits<Actual extends Described, Described> = Actual;
export type DescribedDiscoverResponse = Fits<DiscoverResponse, z.output<typeof DiscoverResponseSchema>>;
export type DescribedSkillDetail = Fits<SkillDetail, z.output<typeof SkillDetailSchema>>;
