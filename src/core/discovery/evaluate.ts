/**
 * Retrieval metrics as ../shared/data/README.md defines them (binary gains): pure
 * functions of a ranked list of ids and the set of relevant ids.
 */

/** |relevant ∩ top k| / |relevant|; 0 when nothing is relevant. */
export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) found += 1;
  return found / relevant.size;
}

/** 1 / rank of the first relevant id within the top k, else 0. */
export function reciprocalRankAt(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  const limit = Math.min(k, ranked.length);
  for (let index = 0; index < limit; index += 1) {
    if (relevant.has(ranked[index] ?? "")) return 1 / (index + 1);
  }
  return 0;
}

/** DCG of the top k with gain 1 per relevant id, over the ideal DCG of min(|relevant|, k) hits. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let dcg = 0;
  const limit = Math.min(k, ranked.length);
  for (let index = 0; index < limit; index += 1) {
    if (relevant.has(ranked[index] ?? "")) dcg += 1 / Math.log2(index + 2);
  }
  let ideal = 0;
  for (let index = 0; index < Math.min(relevant.size, k); index += 1) ideal += 1 / Math.log2(index + 2);
  return dcg / ideal;
}

/** A labelled query: its text and the ids that answer it. */
export interface LabelledQuery {
  query: string;
  relevant: readonly string[];
}

/** Means over queries, each in [0, 1]. */
export interface RetrievalMetrics {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  ndcgAt10: number;
  mrrAt10: number;
}

/**
 * Sums the metrics of ranked lists one query at a time, so that a caller may rank
 * synchronously or not, and time each ranking, as it likes. Rankings should hold at
 * least 10 ids, best first, when they can.
 */
export class MetricsAccumulator {
  private count = 0;
  private readonly sums = { recallAt1: 0, recallAt5: 0, recallAt10: 0, ndcgAt10: 0, mrrAt10: 0 };

  add(ranked: readonly string[], relevant: readonly string[]): void {
    const relevantSet = new Set(relevant);
    this.sums.recallAt1 += recallAt(ranked, relevantSet, 1);
    this.sums.recallAt5 += recallAt(ranked, relevantSet, 5);
    this.sums.recallAt10 += recallAt(ranked, relevantSet, 10);
    this.sums.ndcgAt10 += ndcgAt(ranked, relevantSet, 10);
    this.sums.mrrAt10 += reciprocalRankAt(ranked, relevantSet, 10);
    this.count += 1;
  }

  /** The means so far; all zeros before the first query. */
  metrics(): RetrievalMetrics {
    const mean = (sum: number): number => (this.count === 0 ? 0 : sum / this.count);
    const { sums } = this;
    return {
      queries: this.count,
      recallAt1: mean(sums.recallAt1),
      recallAt5: mean(sums.recallAt5),
      recallAt10: mean(sums.recallAt10),
      ndcgAt10: mean(sums.ndcgAt10),
      mrrAt10: mean(sums.mrrAt10),
    };
  }
}
