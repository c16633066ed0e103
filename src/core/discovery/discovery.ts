import type { SkillRegistry } from "../skills/registry.js";
import { Bm25fRetriever } from "./bm25f.js";
import { type DescriptionRecord, recordToDocument, type SkillDocument, skillToDocument } from "./document.js";
import { DEFAULT_FUSION_WEIGHTS, type FusionWeights, fusedDisplayScore, fuseScores } from "./fusion.js";
import type { MatchedFields, Retriever } from "./retriever.js";
import type { SemanticIndex, SemanticState } from "./semantic-index.js";
import { analyze } from "./text-analysis.js";

/** What `POST /v1/discover` passes to the core (contract: limit 1–50, default 10). */
export interface DiscoverySearchOptions {
  /** At most this many results; default 10. The surface enforces the contract's 1–50. */
  limit?: number;
  /**
   * Only skills having ALL of these tags (case-insensitive), so that adding a tag always
   * narrows the result. Empty or absent: no filter.
   */
  tags?: readonly string[];
}

/** Why a skill matched, so an agent can judge the result (issue 6). */
export interface MatchEvidence {
  /** BM25F share of the query's information the skill covers, in [0, 1]; 0: no word matched. */
  lexical: number;
  /** The query's words found in each field of the skill (id, title, tags, description, params, examples, extra). */
  fields: MatchedFields;
  /** Cosine similarity of the query and the skill's text, when semantic matching counted. */
  semantic?: number;
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

/** How a result was ranked: hybrid when the model was ready, else lexical and why. */
export interface RankingInfo {
  mode: "hybrid" | "lexical";
  /** `off`: lexical by configuration; `loading`: the model is not ready yet; `failed`: it could not run. */
  semantic: SemanticState | "off";
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
  private readonly tagsById = new Map<string, ReadonlySet<string>>();

  constructor(options: DiscoveryIndexOptions = {}) {
    this.lexical = options.lexical ?? new Bm25fRetriever();
    this.semantic = options.semantic;
    this.fusion = options.fusion ?? DEFAULT_FUSION_WEIGHTS;
  }

  get size(): number {
    return this.tagsById.size;
  }

  has(id: string): boolean {
    return this.tagsById.has(id);
  }

  /** Adds or replaces a document; no rebuild (its embedding follows in the background). */
  add(document: SkillDocument): void {
    this.lexical.add(document);
    this.semantic?.add(document);
    this.tagsById.set(document.id, new Set(document.tags));
  }

  /** Removes a document; false if it was not there. */
  remove(id: string): boolean {
    this.tagsById.delete(id);
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
   * Skills for a free-text query, best first, ties broken by id. A query left empty by
   * analysis (only stop words or punctuation) matches nothing and returns no hit.
   */
  async search(query: string, options: DiscoverySearchOptions = {}): Promise<DiscoveryResult> {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_DISCOVERY_LIMIT));
    const filter = this.tagFilter(options.tags);
    const ranking = this.ranking();
    if (ranking.mode === "lexical" || !this.semantic || analyze(query).length === 0) {
      return { hits: this.searchLexical(query, limit, filter), ranking };
    }
    return { hits: await this.searchHybrid(this.semantic, query, limit, filter), ranking };
  }

  /** BM25F alone: the lexical mode, and the answer while the model loads. */
  searchLexical(query: string, limit: number, filter?: (id: string) => boolean): DiscoveryHit[] {
    return this.lexical.search(query, filter ? { limit, filter } : { limit }).map(({ id, score }) => ({
      skill_id: id,
      score,
      match: { lexical: score, fields: this.lexical.explain(id, query) },
    }));
  }

  private async searchHybrid(
    semantic: SemanticIndex,
    query: string,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
  ): Promise<DiscoveryHit[]> {
    if (limit === 0) return [];
    const queryVector = await semantic.embedQuery(query);
    const count = Math.max(limit, FUSION_CANDIDATES);
    const lexicalHits = this.lexical.search(query, filter ? { limit: count, filter } : { limit: count });
    const semanticHits = semantic.vectors.search(queryVector, count, filter);
    const lexicalById = new Map(lexicalHits.map((hit) => [hit.id, hit.score]));
    const semanticById = new Map(semanticHits.map((hit) => [hit.id, hit.score]));
    // A skill whose vector is still being computed gets neutral semantic evidence.
    const neutral = semanticHits.reduce((sum, hit) => sum + hit.score, 0) / Math.max(1, semanticHits.length);
    const ids = new Set([...lexicalById.keys(), ...semanticById.keys()]);
    const candidates = [...ids].map((id) => ({
      id,
      lexical: lexicalById.get(id) ?? 0,
      semantic: semanticById.get(id) ?? semantic.vectors.similarity(queryVector, id) ?? neutral,
    }));
    return fuseScores(candidates, this.fusion)
      .slice(0, limit)
      .map((candidate) => ({
        skill_id: candidate.id,
        score: fusedDisplayScore(candidate.fused),
        match: {
          lexical: candidate.lexical,
          fields: this.lexical.explain(candidate.id, query),
          semantic: candidate.semantic,
        },
      }));
  }

  private tagFilter(tags: readonly string[] | undefined): ((id: string) => boolean) | undefined {
    const wanted = [...new Set((tags ?? []).map((tag) => tag.trim().toLowerCase()))];
    if (wanted.length === 0) return undefined;
    return (id: string): boolean => {
      const own = this.tagsById.get(id);
      return own !== undefined && wanted.every((tag) => own.has(tag));
    };
  }
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
 */
export function createDiscovery(registry: SkillRegistry, options: DiscoveryIndexOptions = {}): Discovery {
  const index = new DiscoveryIndex(options);
  // Subscribe first so that no change can slip between the listing and the subscription.
  const unsubscribe = registry.onChange((event) => {
    if (event.type === "removed") {
      index.remove(event.id);
      return;
    }
    const entry = registry.get(event.id);
    if (entry) index.add(skillToDocument(entry));
  });
  for (const entry of registry.list()) index.add(skillToDocument(entry));
  return {
    index,
    search: (query, searchOptions) => index.search(query, searchOptions),
    start: async () => {
      await index.semantic?.start();
    },
    close: unsubscribe,
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
