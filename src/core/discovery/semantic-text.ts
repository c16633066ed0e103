import { createHash } from "node:crypto";
import { blendTowards } from "./blend-vectors.js";
import { collapseWhitespace } from "./collapse-whitespace.js";
import type { SkillDocument } from "./document.js";

/**
 * Beyond this, text adds little to a sentence embedding and costs model time (a 100k
 * catalog of long OpenAPI descriptions would take hours to embed).
 */
const MAX_SEMANTIC_TEXT_CHARS = 1500;

/**
 * What the model reads of a skill: every text field, most telling first (title,
 * description, tags, examples, parameters, then long model-facing text), cut to a bound.
 * Embedding all fields together was measured better on MetaTool than name and
 * description alone (the study in issue 6: semantic alone 62).
 */
export function semanticText(document: SkillDocument): string {
  const { title, description, tags, examples, params, extra } = document.fields;
  const parts = [title || document.id, description, tags, examples, params, extra]
    .map(collapseWhitespace)
    .filter((part) => part.length > 0);
  return parts.join(". ").slice(0, MAX_SEMANTIC_TEXT_CHARS);
}

/** The example requests of a skill (`SkillExample.query`, one a line in the examples field). */
export function exampleRequests(document: SkillDocument): string[] {
  return document.fields.examples
    .split("\n")
    .map(collapseWhitespace)
    .filter((line) => line.length > 0);
}

/** Part of a skill's vector that comes from its example requests, when it has any. */
const EXAMPLES_SHARE = 0.5;

/**
 * A skill's vector: the vector of its text (`semanticText`) moved half-way towards the
 * mean of its example requests' vectors, each embedded on its own. A query is a short
 * request, and the model matches a request with another request far better than with a
 * paragraph of description and parameters, where the few examples are diluted. On
 * requests worded unlike any skill text (test/discovery/paraphrase-queries.ts, hybrid
 * mode), this ranked the right built-in skill first for 66 of 110 instead of 60 (the
 * right skill rose for 27 requests and fell for 8); a share of 0.25 gave 62, 0.75 gave
 * 66. A skill without examples (MetaTool's tools, most outside catalogs) keeps its
 * text's vector.
 */
export function skillVector(textVector: Float32Array, exampleVectors: readonly Float32Array[]): Float32Array {
  return blendTowards(textVector, exampleVectors, 1 - EXAMPLES_SHARE);
}

/** The cache key of a text: SHA-256, hex. */
export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
