/** How much each signal counts once z-normalised (they need not sum to 1). */
export interface FusionWeights {
  lexical: number;
  semantic: number;
  /**
   * How much the BM25F share counts as it is: above the candidates' mean, but not divided
   * by its spread (0 when absent). A z-score says how far a candidate stands above the
   * others, not how much of the query it covers: a skill that is the only lexical match
   * gets the same lexical z-score whether it matches one word of ten or the whole query,
   * and a few hundredths of cosine, noise on a small catalog, could then outrank a match
   * on every word.
   */
  coverage?: number;
}

/**
 * 0.3 lexical + 0.7 semantic: the study in issue 6 (tuned on MetaTool's dev half, and
 * +4 over lexical on API endpoints); reciprocal rank fusion was clearly worse, because it
 * throws away how far ahead the best candidate is. Coverage 1 (covering the whole query is
 * worth one z-unit more than covering none of it): MetaTool nDCG@10 71.3 → 71.4 (0.5 to 2
 * are within 0.05 of it), and the requests of test/discovery/obvious-queries.ts keep their
 * skill first in hybrid mode ("difference between two timestamps", which matches time.diff
 * in its title, tags and description, had it fifth behind four skills matching no word).
 */
export const DEFAULT_FUSION_WEIGHTS: FusionWeights = { lexical: 0.3, semantic: 0.7, coverage: 1 };

/** One candidate's raw evidence: a BM25F share in [0, 1] (0: no term matched) and a cosine. */
export interface FusionCandidate {
  id: string;
  lexical: number;
  semantic: number;
}

export interface FusedCandidate extends FusionCandidate {
  /**
   * Weighted sum of the z-scores, plus the lexical share's distance from its mean
   * (`coverage`): how far above the average candidate of the query this one stands.
   */
  fused: number;
}

/** A signal's spread over a candidate set. */
export interface Moments {
  mean: number;
  deviation: number;
}

/** Mean and standard deviation; a constant signal gets deviation 1 so it adds nothing. */
function moments(values: readonly number[]): Moments {
  if (values.length === 0) return { mean: 0, deviation: 1 };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return { mean, deviation: variance > 1e-12 ? Math.sqrt(variance) : 1 };
}

/** Where each signal's average lies and how far it spreads: what a z-score is measured from. */
export interface FusionScale {
  lexical: Moments;
  semantic: Moments;
}

/**
 * The scale of a candidate set (the top candidates of both retrievers for a query over
 * the whole catalog): z-normalising each signal over it means that neither scale
 * dominates, since a BM25F share and a cosine live on unrelated scales, and their spread
 * varies from query to query.
 */
export function fusionScale(candidates: readonly FusionCandidate[]): FusionScale {
  return {
    lexical: moments(candidates.map((candidate) => candidate.lexical)),
    semantic: moments(candidates.map((candidate) => candidate.semantic)),
  };
}

/**
 * Fuses the two signals of each candidate as z-scores on `scale` (with the lexical share's
 * own distance from the mean, `FusionWeights.coverage`), which may come from a
 * larger set than `candidates`: a filter narrows the candidates, never the scale, so a
 * skill's score does not depend on which others passed the filter. Best first, ties by id.
 */
export function fuseOnScale(
  candidates: readonly FusionCandidate[],
  scale: FusionScale,
  weights: FusionWeights = DEFAULT_FUSION_WEIGHTS,
): FusedCandidate[] {
  const { lexical, semantic } = scale;
  return candidates
    .map((candidate) => ({
      // Member by member: V8 copies `{ ...candidate, fused }` on a slow path (Node 20: about
      // 0.5 µs for each member added), and every candidate of every query passes here.
      id: candidate.id,
      lexical: candidate.lexical,
      semantic: candidate.semantic,
      fused:
        (weights.lexical * (candidate.lexical - lexical.mean)) / lexical.deviation +
        (weights.semantic * (candidate.semantic - semantic.mean)) / semantic.deviation +
        (weights.coverage ?? 0) * (candidate.lexical - lexical.mean),
    }))
    .sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Fuses the candidates on their own scale (`fuseOnScale` of `fusionScale`). */
export function fuseScores(
  candidates: readonly FusionCandidate[],
  weights: FusionWeights = DEFAULT_FUSION_WEIGHTS,
): FusedCandidate[] {
  return fuseOnScale(candidates, fusionScale(candidates), weights);
}

/** A fused z-score as a display score in (0, 1): the logistic function, monotonic. */
export function fusedDisplayScore(fused: number): number {
  return 1 / (1 + Math.exp(-fused));
}

/**
 * How much an owner's past queries count (learning from use). Unlike the two retrievers'
 * scores, this evidence is not z-normalised: most skills have none, and normalising a
 * sparse signal would lift any skill with a past query, however unrelated. It is an
 * absolute bonus instead: the nearest past query's cosine above a floor, rescaled to
 * [0, 1], plus the BM25F share of the query that the skill's past queries cover.
 */
export interface UsageWeights {
  /** Weight of the nearest past query's similarity above `similarityFloor` (hybrid mode). */
  semantic: number;
  /** Cosine below which a past query says nothing (unrelated sentences score 0.2–0.4 with this model). */
  similarityFloor: number;
  /** Weight of the past queries' BM25F share (hybrid mode, added to the fused z-score). */
  lexical: number;
  /** Lexical mode: the past queries' share fills this part of what the skill's own text leaves uncovered. */
  lexicalMode: number;
}

/**
 * Tuned on metatool-dev with odd-numbered queries fed as usage and even-numbered ones
 * evaluated (the reverse of the split reported), by a coarse grid: nDCG@10 stays within
 * 1 point for semantic 6–14, floor 0.3–0.5, lexical 4–12; the lexical weight is kept in
 * the middle of that range rather than at its best value (12), so that a few shared words
 * with a past query do not outweigh everything else when usage is sparse.
 */
export const DEFAULT_USAGE_WEIGHTS: UsageWeights = {
  semantic: 10,
  similarityFloor: 0.45,
  lexical: 6,
  lexicalMode: 0.6,
};

/** The usage bonus added to a fused z-score (0 when the evidence is too weak to count). */
export function usageBonus(
  evidence: { semantic?: number; lexical: number },
  weights: UsageWeights = DEFAULT_USAGE_WEIGHTS,
): number {
  const similarity = evidence.semantic ?? 0;
  const semantic = Math.max(0, (similarity - weights.similarityFloor) / (1 - weights.similarityFloor));
  return weights.semantic * semantic + weights.lexical * evidence.lexical;
}

/** Lexical mode: the skill's share raised by its past queries' share, staying in [0, 1]. */
export function lexicalWithUsage(
  lexical: number,
  usageLexical: number,
  weights: UsageWeights = DEFAULT_USAGE_WEIGHTS,
): number {
  return lexical + weights.lexicalMode * usageLexical * (1 - lexical);
}
