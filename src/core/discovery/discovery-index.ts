import { Bm25fRetriever } from "./bm25f.js";
import {
  DEFAULT_DISCOVERY_LIMIT,
  type DiscoveryHit,
  type DiscoveryResult,
  type DiscoverySearchOptions,
} from "./discovery-result.js";
import { type DescriptionRecord, recordToDocument, type SkillDocument } from "./document.js";
import {
  DEFAULT_FUSION_WEIGHTS,
  DEFAULT_USAGE_WEIGHTS,
  type FusionWeights,
  fusedDisplayScore,
  fuseOnScale,
  lexicalWithUsage,
  type UsageWeights,
  usageBonus,
} from "./fusion.js";
import { fusionCandidates } from "./fusion-candidates.js";
import type { RankingInfo, UsageMatch } from "./match-evidence.js";
import { DEFAULT_FEEDBACK, expandQuery, type FeedbackParameters } from "./query-expansion.js";
import { rankHits } from "./rank-hits.js";
import type { Retriever, ScoredId, ScoredWithin } from "./retriever.js";
import { SEMANTIC_BUSY, type SemanticIndex } from "./semantic-index.js";
import { SkillNames } from "./skill-names.js";
import { TagIndex } from "./tag-index.js";
import { analyzeQuery } from "./text-analysis.js";
import type { UsageEvidence, UsageSignal } from "./usage-evidence.js";

/** Candidates each retriever contributes to fusion: enough that a skill strong on one signal only is seen. */
const FUSION_CANDIDATES = 100;

export interface DiscoveryIndexOptions {
  lexical?: Retriever;
  /** Semantic matching; absent in lexical mode. */
  semantic?: SemanticIndex;
  fusion?: FusionWeights;
  usageWeights?: UsageWeights;
  /** Pseudo-relevance feedback on the query vector (hybrid mode). */
  feedback?: FeedbackParameters;
}

/** Usage evidence that counts for a skill, with the bonus it is worth. */
type CountedSignal = UsageSignal & { bonus: number };

/**
 * The searchable catalog: documents by id, with their tags for filtering, ranked by BM25F
 * and, when a semantic index is given and its model is ready, by the fusion of BM25F and
 * embedding similarity.
 */
export class DiscoveryIndex {
  private readonly lexical: Retriever;
  readonly semantic: SemanticIndex | undefined;
  private readonly fusion: FusionWeights;
  private readonly usageWeights: UsageWeights;
  private readonly feedback: FeedbackParameters;
  private readonly tags = new TagIndex();
  private readonly names = new SkillNames();

  constructor(options: DiscoveryIndexOptions = {}) {
    this.lexical = options.lexical ?? new Bm25fRetriever();
    this.semantic = options.semantic;
    this.fusion = options.fusion ?? DEFAULT_FUSION_WEIGHTS;
    this.usageWeights = options.usageWeights ?? DEFAULT_USAGE_WEIGHTS;
    this.feedback = options.feedback ?? DEFAULT_FEEDBACK;
  }

  get size(): number {
    return this.tags.size;
  }

  has(id: string): boolean {
    return this.tags.has(id);
  }

  /** Adds or replaces a document; no rebuild (its embedding follows in the background). */
  add(document: SkillDocument): void {
    this.lexical.add(document);
    this.semantic?.add(document);
    this.tags.set(document.id, document.tags);
    this.names.add(document.id);
  }

  /** Removes a document; false if it was not there. */
  remove(id: string): boolean {
    this.tags.remove(id);
    this.names.remove(id);
    this.semantic?.remove(id);
    return this.lexical.remove(id);
  }

  /** What ranking a search would use now. */
  ranking(): RankingInfo {
    if (!this.semantic) return { mode: "lexical", semantic: "off" };
    const state = this.semantic.state;
    return { mode: state === "ready" ? "hybrid" : "lexical", semantic: state };
  }

  /**
   * Skills for a free-text query, best first, ties broken by id. A query that names a
   * skill (its id, or its MCP tool name: case, `.`, `_`, `-` and spaces aside) ranks that
   * skill first in either mode (`rankHits`): in hybrid mode a low cosine outweighed the
   * only lexical match (`util.wait` came 7th for "util.wait"). A query left empty by
   * analysis (only stop words or punctuation) matches nothing else and returns no other hit.
   * With the model ready, a query that would wait behind a full batch of its work is ranked
   * lexically at once, saying `busy` (`SemanticIndex.wouldWait`).
   */
  async search(query: string, options: DiscoverySearchOptions = {}): Promise<DiscoveryResult> {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_DISCOVERY_LIMIT));
    const filter = this.tags.filter(options.tags);
    const ready = this.ranking();
    const ranking: RankingInfo =
      ready.mode === "hybrid" && this.semantic?.wouldWait(query, options.owner)
        ? { mode: "lexical", semantic: SEMANTIC_BUSY }
        : ready;
    const named = this.names.named(query);
    if (ranking.mode === "lexical" || !this.semantic || analyzeQuery(query).length === 0) {
      return { hits: this.searchLexical(query, limit, filter, options.usage, named), ranking };
    }
    if (limit === 0) return { hits: [], ranking };
    const queryVector = await this.semantic.embedQuery(query, options.owner).catch(() => undefined);
    if (queryVector === undefined) {
      // The model failed this query (its thread died while embedding it): answered
      // lexically, saying why, as while it loads again.
      const now = this.ranking();
      return {
        hits: this.searchLexical(query, limit, filter, options.usage, named),
        ranking: now.mode === "hybrid" ? { mode: "lexical", semantic: "failed" } : now,
      };
    }
    return {
      hits: this.searchHybrid(this.semantic, query, queryVector, limit, filter, options.usage, named),
      ranking,
    };
  }

  /**
   * BM25F alone: the lexical mode, and the answer while the model loads (public, and
   * synchronous, for the tests and the scale bench that time it). With usage evidence, a
   * skill's share is raised by the share its past queries cover. The skills in `named`
   * (the query names them) that pass the filter come first, with score 1.
   */
  searchLexical(
    query: string,
    limit: number,
    filter?: (id: string) => boolean,
    usage?: UsageEvidence,
    named: readonly string[] = [],
  ): DiscoveryHit[] {
    const signals = this.usageSignals(usage, query, undefined, filter);
    const namedIds = new Set(named.filter((id) => this.has(id) && (!filter || filter(id))));
    if (signals.size === 0 && namedIds.size === 0) {
      // Nothing to merge: BM25F's answer, in its own order (by its raw scores).
      const explain = this.lexical.explainer(query);
      return this.lexical.search(query, filter ? { limit, filter } : { limit }).map(({ id, score }) => ({
        skill_id: id,
        score,
        match: { lexical: score, fields: explain(id) },
      }));
    }
    const count = Math.max(limit, FUSION_CANDIDATES);
    // BM25F shares do not depend on the other skills: the filter's and the catalog's agree.
    const { all, within } = this.lexicalScores(query, count, filter, [...signals.keys(), ...namedIds]);
    const candidates = [...new Set([...within.keys(), ...signals.keys(), ...namedIds])].map((id) => {
      const lexical = within.get(id) ?? all.get(id) ?? 0;
      const signal = signals.get(id);
      const score = lexicalWithUsage(lexical, signal?.lexical ?? 0, this.usageWeights);
      // Lexical mode orders by the score shown, and a named skill shows 1: several skills
      // one query names (ids differing only in case or separators) come by id.
      return { id, rank: namedIds.has(id) ? 1 : score, score, lexical, signal };
    });
    const explain = this.lexical.explainer(query);
    return rankHits(candidates, limit, namedIds, (candidate) => ({
      lexical: candidate.lexical,
      fields: explain(candidate.id),
      ...(candidate.signal && usage && { usage: usageMatch(usage, candidate.id, query, candidate.signal) }),
    }));
  }

  /**
   * BM25F fused with the cosine to the query's expanded vector. A filter narrows the
   * answer, never the ranking: the z-scores' scale, the feedback that moves the query and
   * the usage evidence come from the whole catalog, exactly as for the unfiltered query,
   * so a skill passing the filter keeps its unfiltered score, hence its order. Ranking the
   * filtered skills among themselves reordered them (time.convert fell from 0.857 to 0.30
   * when narrowed by a tag every time skill carries).
   */
  private searchHybrid(
    semantic: SemanticIndex,
    query: string,
    queryVector: Float32Array,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
    usage: UsageEvidence | undefined,
    named: readonly string[],
  ): DiscoveryHit[] {
    const signals = this.usageSignals(usage, query, queryVector, undefined);
    const count = Math.max(limit, FUSION_CANDIDATES);
    const namedIds = new Set(named);
    const lexicalById = this.lexicalScores(query, count, filter, [...signals.keys(), ...namedIds]);
    // One scan of the vectors yields the catalog's nearest skills and the filter's.
    const semanticHits = filter
      ? semantic.vectors.searchWithin(queryVector, count, filter)
      : unfiltered(semantic.vectors.search(queryVector, count));
    // Pseudo-relevance feedback: the candidates are scored against the query moved towards
    // its nearest skills (only the candidates: a second pass over the catalog is not needed).
    const feedback = semanticHits.all
      .slice(0, this.feedback.documents)
      .flatMap((hit) => semantic.vectors.vectorOf(hit.id) ?? []);
    const expanded = expandQuery(queryVector, feedback, this.feedback.queryWeight);
    const { candidates, scale } = fusionCandidates({
      catalogIds: [
        ...lexicalById.all.keys(),
        ...semanticHits.all.map((hit) => hit.id),
        ...signals.keys(),
        ...namedIds,
      ],
      lexical: lexicalById,
      semanticWithin: filter ? semanticHits.within.map((hit) => hit.id) : [],
      similarity: (id) => semantic.vectors.similarity(expanded, id),
      filter,
    });
    const fused = fuseOnScale(candidates, scale, this.fusion).map((candidate) => {
      const signal = signals.get(candidate.id);
      const rank = candidate.fused + (signal?.bonus ?? 0);
      // Member by member, as `fuseOnScale` makes them (V8's slow path for a spread grown).
      const { id, lexical, semantic, fused } = candidate;
      return { id, lexical, semantic, fused, rank, score: fusedDisplayScore(rank), signal };
    });
    // A candidate the filter excludes never gets here, named or not (fusionCandidates).
    const explain = this.lexical.explainer(query);
    return rankHits(fused, limit, namedIds, (candidate) => ({
      lexical: candidate.lexical,
      fields: explain(candidate.id),
      semantic: candidate.semantic,
      ...(candidate.signal && usage && { usage: usageMatch(usage, candidate.id, query, candidate.signal) }),
    }));
  }

  /**
   * The owner's usage evidence that counts (a positive bonus) for skills still in the
   * index and accepted by the filter, with its bonus.
   */
  private usageSignals(
    usage: UsageEvidence | undefined,
    query: string,
    queryVector: Float32Array | undefined,
    filter: ((id: string) => boolean) | undefined,
  ): Map<string, CountedSignal> {
    const counted = new Map<string, CountedSignal>();
    if (!usage) return counted;
    const accepts = (id: string): boolean => this.has(id) && (!filter || filter(id));
    for (const [id, signal] of usage.signals(query, queryVector, accepts)) {
      const bonus = usageBonus(signal, this.usageWeights);
      if (bonus > 0) counted.set(id, { ...signal, bonus });
    }
    return counted;
  }

  /**
   * BM25F shares of the catalog's top `count` skills (`all`) and of the top `count` that
   * `filter` accepts (`within`, the same map without a filter), from one search. `all`
   * also holds every skill of `extra` (those with usage evidence, those the query names):
   * a skill lifted by its past queries is ranked with its own share, not with 0.
   */
  private lexicalScores(
    query: string,
    count: number,
    filter: ((id: string) => boolean) | undefined,
    extra: readonly string[],
  ): { all: Map<string, number>; within: Map<string, number> } {
    const found = filter
      ? this.lexical.searchWithin(query, count, filter)
      : unfiltered(this.lexical.search(query, { limit: count }));
    const all = new Map(found.all.map((hit) => [hit.id, hit.score]));
    const within = filter ? new Map(found.within.map((hit) => [hit.id, hit.score])) : all;
    const missing = extra.filter((id) => !all.has(id));
    if (missing.length > 0) {
      const wanted = new Set(missing);
      for (const hit of this.lexical.search(query, { limit: wanted.size, filter: (id) => wanted.has(id) })) {
        all.set(hit.id, hit.score);
      }
    }
    return { all, within };
  }
}

/** The results of an unfiltered search, as a filtered one that kept everything. */
function unfiltered(hits: ScoredId[]): ScoredWithin {
  return { all: hits, within: hits };
}

/** The past query shown for a skill the owner's usage lifted. */
function usageMatch(usage: UsageEvidence, skillId: string, query: string, signal: UsageSignal): UsageMatch {
  const past = usage.pastQueryFor(skillId, query, signal);
  return {
    query: past?.query ?? "",
    count: past?.count ?? 0,
    ...(signal.semantic !== undefined && { similarity: signal.semantic }),
    lexical: signal.lexical,
  };
}

/**
 * An index over description-only records (evaluation sets, outside catalogs), ranked
 * exactly as the registry's skills are.
 */
export function createDiscoveryIndex(
  records: Iterable<DescriptionRecord>,
  options: DiscoveryIndexOptions = {},
): DiscoveryIndex {
  const index = new DiscoveryIndex(options);
  for (const record of records) index.add(recordToDocument(record));
  return index;
}
