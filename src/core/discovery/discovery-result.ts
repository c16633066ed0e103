import type { MatchEvidence, RankingInfo } from "./match-evidence.js";
import type { UsageEvidence } from "./usage-evidence.js";

/*
 * What a discovery search takes and answers, in the core's terms. The discover answer a
 * surface sends (each hit with its skill's summary) is `DiscoverResponseSchema`
 * (answer-schemas.ts), built from these by `CatalogService.discover`.
 */

export const DEFAULT_DISCOVERY_LIMIT = 10;

/** What `POST /v1/discover` passes to the core (contract: limit 1–50, default 10). */
export interface DiscoverySearchOptions {
  /** At most this many results; default 10. The surface enforces the contract's 1–50. */
  limit?: number;
  /**
   * Only skills having ALL of these tags (case-insensitive), so that adding a tag always
   * narrows the result; those kept have the score and order they have without the
   * filter. Empty or absent: no filter.
   */
  tags?: readonly string[];
  /** The caller's owner's learned queries (learning from use); absent: none count. */
  usage?: UsageEvidence;
  /**
   * The caller's owner: a query vector is reused only for the owner that sent the query
   * (semantic-index.ts). Absent: callers with no owner (the dashboard) share their own.
   */
  owner?: string;
}

/** One ranked skill. */
export interface DiscoveryHit {
  skill_id: string;
  /**
   * Higher is better, in (0, 1]. Lexical ranking: the share of the query's information the
   * skill covers (bm25f.ts). Hybrid ranking: the logistic of the fused z-score (fusion.ts),
   * 0.5 for a candidate of average strength. A skill the query names: 1. Not a probability.
   */
  score: number;
  match: MatchEvidence;
}

export interface DiscoveryResult {
  hits: DiscoveryHit[];
  ranking: RankingInfo;
}
