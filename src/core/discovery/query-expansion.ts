import { blendTowards } from "./blend-vectors.js";

/** Pseudo-relevance feedback on the query's embedding (Rocchio, 1971). */
export interface FeedbackParameters {
  /** How many of the most similar skills the query is moved towards; 0 turns feedback off. */
  documents: number;
  /** The original query's share of the expanded vector, in (0, 1]. */
  queryWeight: number;
}

/**
 * Top 5, query weight 0.6: +0.7 nDCG@10 and +0.9 recall@5 on metatool-dev (hybrid, every
 * query); 3–10 skills and weights 0.5–0.7 are within 0.2 of it. A short query embeds
 * noisily; moving it towards the skills it already resembles most makes its vector read
 * more like a skill description, which is what it is compared with.
 */
export const DEFAULT_FEEDBACK: FeedbackParameters = { documents: 5, queryWeight: 0.6 };

/**
 * `queryWeight · query + (1 − queryWeight) · mean(feedback)`, scaled back to unit length.
 * Without feedback vectors, the query itself.
 */
export function expandQuery(
  query: Float32Array,
  feedback: readonly Float32Array[],
  queryWeight: number,
): Float32Array {
  return blendTowards(query, feedback, queryWeight);
}
