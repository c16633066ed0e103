import { z } from "zod";
import { FIELD_NAMES } from "./document.js";
import { SEMANTIC_BUSY, SEMANTIC_STATES } from "./semantic-index.js";

/*
 * Why a skill matched and how a discover answer was ranked, as the answer shows them.
 * Defined once as schemas: the types, the discover answer's schema (answer-schemas.ts)
 * and so the OpenAPI document come from them.
 */

/** Query words found in each field of a skill (only fields with a match are present). */
export const MatchedFieldsSchema = z.partialRecord(z.enum(FIELD_NAMES), z.array(z.string()));
export type MatchedFields = z.output<typeof MatchedFieldsSchema>;

/** The caller's own past query that counted for a skill (learning from use). */
export const UsageMatchSchema = z.object({
  query: z
    .string()
    .describe("The past query that led the caller's owner to execute this skill and matches best"),
  count: z.number().describe("How many times that query was followed by executing the skill"),
  similarity: z.number().optional().describe("Its cosine similarity to this query, in hybrid mode"),
  lexical: z.number().describe("BM25F share of this query that the skill's past queries cover, in [0, 1]"),
});
export type UsageMatch = z.output<typeof UsageMatchSchema>;

/** Why a skill matched, so an agent can judge the result (issue 6). */
export const MatchEvidenceSchema = z
  .object({
    lexical: z
      .number()
      .describe("BM25F share of the query's information the skill covers, in [0, 1]; 0: no word matched"),
    fields: MatchedFieldsSchema.describe("The query's words found in each field of the skill"),
    // The query is first moved towards its nearest skills (pseudo-relevance feedback,
    // query-expansion.ts).
    semantic: z
      .number()
      .optional()
      .describe("Cosine similarity of the query and the skill's text, when semantic matching counted"),
    usage: UsageMatchSchema.optional().describe(
      "Present when the owner's past queries counted for this skill (learning from use)",
    ),
    // Its MCP tool name, or the id's words, count as its id.
    named: z
      .literal(true)
      .optional()
      .describe("The query is this skill's id or its tool name: it ranks first, with score 1"),
  })
  .describe("Why the skill ranks where it does");
export type MatchEvidence = z.output<typeof MatchEvidenceSchema>;

/** How a result was ranked: hybrid when the model was ready, else lexical and why. */
export const RankingInfoSchema = z
  .object({
    mode: z
      .enum(["hybrid", "lexical"])
      .describe("hybrid: word matching fused with semantic similarity; lexical: word matching alone"),
    semantic: z
      .enum([...SEMANTIC_STATES, SEMANTIC_BUSY, "off"])
      .describe(
        "off: lexical by configuration; loading: the model is not ready yet; failed: it could not run; " +
          "busy: the model had more queries waiting than it answers at once, so this one was not queued behind them",
      ),
  })
  .describe("How the results were ranked (hybrid or lexical, and why)");
export type RankingInfo = z.output<typeof RankingInfoSchema>;
