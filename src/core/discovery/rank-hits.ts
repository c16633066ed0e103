import type { DiscoveryHit } from "./discovery-result.js";
import type { MatchEvidence } from "./match-evidence.js";

/** A skill one ranking mode scored, before the answer is ordered and cut to its limit. */
export interface RankCandidate {
  id: string;
  /**
   * What the mode orders skills by, higher first: the share raised by usage in lexical
   * mode (the score shown), the fused z-score plus the usage bonus in hybrid mode.
   */
  rank: number;
  /** The score the answer shows for the skill when the query does not name it, in (0, 1]. */
  score: number;
}

/**
 * The answer of a search in either mode, best first, at most `limit` hits. The skills
 * the query names (`named`) come first, with score 1 and `match.named`: no lexical share,
 * z-score or usage bonus outranks a query naming a skill (the model reads a bare id as
 * noise). The named ones among themselves, then the others, go by `rank`; ties by id.
 */
export function rankHits<C extends RankCandidate>(
  candidates: Iterable<C>,
  limit: number,
  named: ReadonlySet<string>,
  toMatch: (candidate: C) => MatchEvidence,
): DiscoveryHit[] {
  const isNamed = (candidate: C): boolean => named.has(candidate.id);
  return [...candidates]
    .sort((a, b) => Number(isNamed(b)) - Number(isNamed(a)) || b.rank - a.rank || byId(a.id, b.id))
    .slice(0, limit)
    .map((candidate) =>
      isNamed(candidate)
        ? { skill_id: candidate.id, score: 1, match: { ...toMatch(candidate), named: true } }
        : { skill_id: candidate.id, score: candidate.score, match: toMatch(candidate) },
    );
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
