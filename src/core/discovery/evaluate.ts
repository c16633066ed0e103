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
  ndcgAt10: number;
  recallAt5: number;
  mrrAt10: number;
}

/**
 * Runs `rank` (which must return at least 10 ids, best first, when it can) on every
 * query and averages nDCG@10, recall@5 and MRR@10.
 */
export function evaluateRanking(
  queries: Iterable<LabelledQuery>,
  rank: (query: string) => readonly string[],
): RetrievalMetrics {
  let count = 0;
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  for (const { query, relevant } of queries) {
    const ranked = rank(query);
    const relevantSet = new Set(relevant);
    ndcg += ndcgAt(ranked, relevantSet, 10);
    recall += recallAt(ranked, relevantSet, 5);
    mrr += reciprocalRankAt(ranked, relevantSet, 10);
    count += 1;
  }
  const mean = (sum: number): number => (count === 0 ? 0 : sum / count);
  return { queries: count, ndcgAt10: mean(ndcg), recallAt5: mean(recall), mrrAt10: mean(mrr) };
}
