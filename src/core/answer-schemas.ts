import { z } from "zod";
import { MatchEvidenceSchema, RankingInfoSchema } from "./discovery/match-evidence.js";
import { SkillAnnotationsSchema, SkillExampleSchema } from "./skills/skill.js";

/**
 * The bodies every surface answers with besides the execution record (which has its own
 * schema, record.ts): a skill, a discover answer, a page of a listing. Defined once as
 * schemas, as the requests are (api-schemas.ts): the types below, the OpenAPI document
 * and the client's types come from them, so they cannot drift apart.
 */

const JsonSchemaObject = z.record(z.string(), z.unknown());

/** A discovery result: enough to call `POST /v1/execute` without another round trip. */
export const SkillSummarySchema = z.object({
  skill_id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  params: JsonSchemaObject.describe("JSON Schema of the params object POST /v1/execute takes"),
});
export type SkillSummary = z.output<typeof SkillSummarySchema>;

/** One skill in full (`GET /v1/skills/{skill_id}`). */
export const SkillDetailSchema = SkillSummarySchema.extend({
  result: JsonSchemaObject.describe("JSON Schema of the record's result when it completes"),
  annotations: SkillAnnotationsSchema,
  examples: z.array(SkillExampleSchema),
});
export type SkillDetail = z.output<typeof SkillDetailSchema>;

/** A ranked skill: the contract's fields, plus `match` (why it matched; an addition the contract's shape allows). */
export const DiscoveredSkillSchema = SkillSummarySchema.extend({
  // Lexical ranking: the share of the query's information the skill covers (bm25f.ts);
  // hybrid ranking: the logistic of the fused z-score (fusion.ts). Not a probability.
  score: z.number().describe("Higher is better, in (0, 1]; comparable within one answer"),
  match: MatchEvidenceSchema,
});
export type DiscoveredSkill = z.output<typeof DiscoveredSkillSchema>;

/** The answer of `POST /v1/discover`. */
export const DiscoverResponseSchema = z.object({
  query: z.string(),
  results: z.array(DiscoveredSkillSchema),
  took_ms: z.number(),
  ranking: RankingInfoSchema,
});
export type DiscoverResponse = z.output<typeof DiscoverResponseSchema>;

/** A cursor-paginated listing of `item`s. */
export function pageSchema(item: z.ZodType) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last"),
  });
}
