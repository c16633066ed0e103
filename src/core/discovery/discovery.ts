import type { CatalogSkill, SkillRegistry } from "../skills/registry.js";
import { Bm25fRetriever } from "./bm25f.js";
import { type DescriptionRecord, recordToDocument, type SkillDocument, skillToDocument } from "./document.js";
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
import type { MatchEvidence, RankingInfo, UsageMatch } from "./match-evidence.js";
import { DEFAULT_FEEDBACK, expandQuery, type FeedbackParameters } from "./query-expansion.js";
import type { Retriever, ScoredId, ScoredWithin } from "./retriever.js";
import type { SemanticIndex } from "./semantic-index.js";
import { SkillNames } from "./skill-names.js";
import { TagIndex } from "./tag-index.js";
import { analyze } from "./text-analysis.js";
import type { UsageEvidence, UsageSignal } from "./usage-evidence.js";

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
   * 0.5 for a candidate of average strength. Not a probability.
   */
  score: number;
  match: MatchEvidence;
}

export interface DiscoveryResult {
  hits: DiscoveryHit[];
  ranking: RankingInfo;
}

export const DEFAULT_DISCOVERY_LIMIT = 10;
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
   * skill first in either mode: the model reads a bare identifier as noise, and in hybrid
   * mode a low cosine outweighed the only lexical match (`util.wait` came 7th for
   * "util.wait"). A query left empty by analysis (only stop words or punctuation) matches
   * nothing else and returns no other hit.
   */
  async search(query: string, options: DiscoverySearchOptions = {}): Promise<DiscoveryResult> {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_DISCOVERY_LIMIT));
    const filter = this.tags.filter(options.tags);
    const ranking = this.ranking();
    const named = this.names.named(query);
    if (ranking.mode === "lexical" || !this.semantic || analyze(query).length === 0) {
      return { hits: this.searchLexical(query, limit, filter, options.usage, named), ranking };
    }
    return {
      hits: await this.searchHybrid(this.semantic, query, limit, filter, options.usage, options.owner, named),
      ranking,
    };
  }

  /**
   * BM25F alone: the lexical mode, and the answer while the model loads. With usage
   * evidence, a skill's share is raised by the share its past queries cover. The skills in
   * `named` (the query names them) that pass the filter come first, with score 1.
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
      return this.lexical.search(query, filter ? { limit, filter } : { limit }).map(({ id, score }) => ({
        skill_id: id,
        score,
        match: { lexical: score, fields: this.lexical.explain(id, query) },
      }));
    }
    const count = Math.max(limit, FUSION_CANDIDATES);
    // BM25F shares do not depend on the other skills: the filter's and the catalog's agree.
    const { all, within } = this.lexicalScores(query, count, filter, [...signals.keys(), ...namedIds]);
    return [...new Set([...within.keys(), ...signals.keys(), ...namedIds])]
      .map((id) => {
        const lexical = within.get(id) ?? all.get(id) ?? 0;
        const signal = signals.get(id);
        const isNamed = namedIds.has(id);
        return {
          id,
          lexical,
          signal,
          isNamed,
          score: isNamed ? 1 : lexicalWithUsage(lexical, signal?.lexical ?? 0, this.usageWeights),
        };
      })
      .sort((a, b) => b.score - a.score || Number(b.isNamed) - Number(a.isNamed) || byId(a.id, b.id))
      .slice(0, limit)
      .map(({ id, lexical, signal, isNamed, score }) => ({
        skill_id: id,
        score,
        match: {
          lexical,
          fields: this.lexical.explain(id, query),
          ...(signal && usage && { usage: usageMatch(usage, id, query, signal) }),
          ...(isNamed && { named: true as const }),
        },
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
  private async searchHybrid(
    semantic: SemanticIndex,
    query: string,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
    usage: UsageEvidence | undefined,
    owner: string | undefined,
    named: readonly string[],
  ): Promise<DiscoveryHit[]> {
    if (limit === 0) return [];
    const queryVector = await semantic.embedQuery(query, owner);
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
    // A named skill comes first: no z-score (a bare id embeds as noise) nor usage bonus
    // outranks the query naming it. The fused scores order the rest.
    return fuseOnScale(candidates, scale, this.fusion)
      .map((candidate) => {
        const signal = signals.get(candidate.id);
        const isNamed = namedIds.has(candidate.id);
        return { ...candidate, fused: candidate.fused + (signal?.bonus ?? 0), signal, isNamed };
      })
      .sort((a, b) => Number(b.isNamed) - Number(a.isNamed) || b.fused - a.fused || byId(a.id, b.id))
      .slice(0, limit)
      .map((candidate) => ({
        skill_id: candidate.id,
        score: candidate.isNamed ? 1 : fusedDisplayScore(candidate.fused),
        match: {
          lexical: candidate.lexical,
          fields: this.lexical.explain(candidate.id, query),
          semantic: candidate.semantic,
          ...(candidate.signal &&
            usage && { usage: usageMatch(usage, candidate.id, query, candidate.signal) }),
          ...(candidate.isNamed && { named: true as const }),
        },
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
  ): Map<string, UsageSignal & { bonus: number }> {
    const counted = new Map<string, UsageSignal & { bonus: number }>();
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

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The results of an unfiltered search, as a filtered one that kept everything. */
function unfiltered(hits: ScoredId[]): ScoredWithin {
  return { all: hits, within: hits };
}

function usageMatch(usage: UsageEvidence, skillId: string, query: string, signal: UsageSignal): UsageMatch {
  const past = usage.pastQueryFor(skillId, query, signal);
  return {
    query: past?.query ?? "",
    count: past?.count ?? 0,
    ...(signal.semantic !== undefined && { similarity: signal.semantic }),
    lexical: signal.lexical,
  };
}

/** A discovery index that follows a registry. */
export interface Discovery {
  readonly index: DiscoveryIndex;
  search(query: string, options?: DiscoverySearchOptions): Promise<DiscoveryResult>;
  /**
   * Loads the model and embeds the catalog in the background (hybrid mode); searches are
   * answered lexically meanwhile. The promise never rejects: a failure leaves ranking lexical.
   */
  start(): Promise<void>;
  /** Stops following the registry (the index keeps its current content). */
  close(): void;
}

/**
 * Indexes every skill of the registry, then follows its `onChange` events so that a skill
 * added or removed is findable (or gone) on the very next search, without a rebuild.
 *
 * The index is built on first use (a search, `start`, or reading `index`), not when the
 * core is assembled: analysing every skill's text takes tens of milliseconds that an
 * assistant spawning `skillport mcp` would otherwise wait for before its tools/list.
 */
export function createDiscovery(registry: SkillRegistry, options: DiscoveryIndexOptions = {}): Discovery {
  let built: DiscoveryIndex | undefined;
  /** The registry's skills when `close` came before the first use: what the index then holds. */
  let atClose: CatalogSkill[] | undefined;
  let unsubscribe = (): void => {};
  const index = (): DiscoveryIndex => {
    if (built) return built;
    const fresh = new DiscoveryIndex(options);
    // Subscribe first so that no change can slip between the listing and the subscription.
    if (!atClose) {
      unsubscribe = registry.onChange((event) => {
        if (event.type === "removed") {
          fresh.remove(event.id);
          return;
        }
        const entry = registry.get(event.id);
        if (entry) fresh.add(skillToDocument(entry));
      });
    }
    for (const entry of atClose ?? registry.list()) fresh.add(skillToDocument(entry));
    built = fresh;
    return fresh;
  };
  return {
    get index() {
      return index();
    },
    search: (query, searchOptions) => index().search(query, searchOptions),
    start: async () => {
      await index().semantic?.start();
    },
    close: () => {
      if (!built) atClose = registry.list();
      unsubscribe();
    },
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
