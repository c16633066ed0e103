import { createHash } from "node:crypto";
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
    .map((part) => part.replace(/\s+/g, " ").trim())
    .filter((part) => part.length > 0);
  return parts.join(". ").slice(0, MAX_SEMANTIC_TEXT_CHARS);
}

/** The cache key of a text: SHA-256, hex. */
export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
