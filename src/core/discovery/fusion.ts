/** How much each signal counts once z-normalised (they need not sum to 1). */
export interface FusionWeights {
  lexical: number;
  semantic: number;
}

/**
 * 0.3 lexical + 0.7 semantic: the study in issue 6 (tuned on MetaTool's dev half, and
 * +4 over lexical on API endpoints); reciprocal rank fusion was clearly worse, because it
 * throws away how far ahead the best candidate is.
 */
export const DEFAULT_FUSION_WEIGHTS: FusionWeights = { lexical: 0.3, semantic: 0.7 };

/** One candidate's raw evidence: a BM25F share in [0, 1] (0: no term matched) and a cosine. */
export interface FusionCandidate {
  id: string;
  lexical: number;
  semantic: number;
}

export interface FusedCandidate extends FusionCandidate {
  /** Weighted sum of the z-scores: how far above the candidates' average this one stands. */
  fused: number;
}

/** Mean and standard deviation; a constant signal gets deviation 1 so it adds nothing. */
function moments(values: readonly number[]): { mean: number; deviation: number } {
  if (values.length === 0) return { mean: 0, deviation: 1 };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return { mean, deviation: variance > 1e-12 ? Math.sqrt(variance) : 1 };
}

/**
 * Fuses two signals by z-normalising each over the candidate set (the top candidates of
 * both retrievers), so that neither scale dominates: a BM25F share and a cosine live on
 * unrelated scales, and their spread varies from query to query. Best first, ties by id.
 */
export function fuseScores(
  candidates: readonly FusionCandidate[],
  weights: FusionWeights = DEFAULT_FUSION_WEIGHTS,
): FusedCandidate[] {
  const lexical = moments(candidates.map((candidate) => candidate.lexical));
  const semantic = moments(candidates.map((candidate) => candidate.semantic));
  return candidates
    .map((candidate) => ({
      ...candidate,
      fused:
        (weights.lexical * (candidate.lexical - lexical.mean)) / lexical.deviation +
        (weights.semantic * (candidate.semantic - semantic.mean)) / semantic.deviation,
    }))
    .sort((a, b) => b.fused - a.fused || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A fused z-score as a display score in (0, 1): the logistic function, monotonic. */
export function fusedDisplayScore(fused: number): number {
  return 1 / (1 + Math.exp(-fused));
}
