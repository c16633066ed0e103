import { type FusionCandidate, type FusionScale, fusionScale } from "./fusion.js";

/** What a hybrid search found for a query, before fusion. */
export interface HybridEvidence {
  /**
   * The skills an unfiltered query ranks: the catalog's best by BM25F and by cosine, and
   * those with usage evidence. The scale of the z-scores is theirs, filter or not.
   */
  catalogIds: Iterable<string>;
  /** BM25F shares of the catalog's best (`all`) and of the filter's best (`within`). */
  lexical: { all: ReadonlyMap<string, number>; within: ReadonlyMap<string, number> };
  /** The filter's best skills by cosine (none without a filter). */
  semanticWithin: readonly string[];
  /** Cosine of a skill with the expanded query; undefined while its vector is computed. */
  similarity: (id: string) => number | undefined;
  filter: ((id: string) => boolean) | undefined;
}

/**
 * The candidates to fuse, and the scale to fuse them on. Without a filter, the catalog's
 * candidates on their own scale. With one, the catalog's candidates that pass it, with
 * the same evidence, plus the filter's own best skills beyond them (a narrow filter may
 * keep none of the catalog's), all on the catalog's scale: a filter narrows the answer,
 * it does not rescore the skills it keeps.
 */
export function fusionCandidates(evidence: HybridEvidence): {
  candidates: FusionCandidate[];
  scale: FusionScale;
} {
  const { lexical, similarity, filter } = evidence;
  const ids = [...new Set(evidence.catalogIds)];
  const similarities = ids.map(similarity);
  // A skill whose vector is still being computed gets neutral semantic evidence.
  let total = 0;
  let embedded = 0;
  for (const value of similarities) {
    if (value === undefined) continue;
    total += value;
    embedded += 1;
  }
  const neutral = total / Math.max(1, embedded);
  const catalog = ids.map((id, index) => ({
    id,
    lexical: lexical.all.get(id) ?? 0,
    semantic: similarities[index] ?? neutral,
  }));
  const scale = fusionScale(catalog);
  if (!filter) return { candidates: catalog, scale };
  const known = new Set(ids);
  const beyond = new Set(
    [...lexical.within.keys(), ...evidence.semanticWithin].filter((id) => !known.has(id)),
  );
  const candidates = [
    ...catalog.filter((candidate) => filter(candidate.id)),
    ...[...beyond].map((id) => ({
      id,
      lexical: lexical.within.get(id) ?? 0,
      semantic: similarity(id) ?? neutral,
    })),
  ];
  return { candidates, scale };
}
