import type { SkillRegistry } from "../skills/registry.js";
import { Bm25fRetriever } from "./bm25f.js";
import { type DescriptionRecord, recordToDocument, type SkillDocument, skillToDocument } from "./document.js";
import type { Retriever } from "./retriever.js";

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

/** One ranked skill. */
export interface DiscoveryHit {
  skill_id: string;
  /**
   * In (0, 1]: the share of the query's information the skill covers (bm25f.ts explains
   * the normalisation). Comparable across queries; not a probability.
   */
  score: number;
}

export const DEFAULT_DISCOVERY_LIMIT = 10;

/**
 * The searchable catalog: documents by id, with their tags for filtering, ranked by a
 * `Retriever` (BM25F unless another one is given, e.g. a fusion of lexical and semantic).
 */
export class DiscoveryIndex {
  private readonly retriever: Retriever;
  private readonly tagsById = new Map<string, ReadonlySet<string>>();

  constructor(retriever: Retriever = new Bm25fRetriever()) {
    this.retriever = retriever;
  }

  get size(): number {
    return this.tagsById.size;
  }

  has(id: string): boolean {
    return this.tagsById.has(id);
  }

  /** Adds or replaces a document; no rebuild. */
  add(document: SkillDocument): void {
    this.retriever.add(document);
    this.tagsById.set(document.id, new Set(document.tags));
  }

  /** Removes a document; false if it was not there. */
  remove(id: string): boolean {
    this.tagsById.delete(id);
    return this.retriever.remove(id);
  }

  /**
   * Skills for a free-text query, best first, ties broken by id. A query left empty by
   * analysis (only stop words or punctuation) matches nothing and returns `[]`.
   */
  search(query: string, options: DiscoverySearchOptions = {}): DiscoveryHit[] {
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_DISCOVERY_LIMIT));
    const wanted = [...new Set((options.tags ?? []).map((tag) => tag.trim().toLowerCase()))];
    const filter =
      wanted.length === 0
        ? undefined
        : (id: string): boolean => {
            const tags = this.tagsById.get(id);
            return tags !== undefined && wanted.every((tag) => tags.has(tag));
          };
    return this.retriever
      .search(query, filter ? { limit, filter } : { limit })
      .map(({ id, score }) => ({ skill_id: id, score }));
  }
}

/** A discovery index that follows a registry. */
export interface Discovery {
  readonly index: DiscoveryIndex;
  search(query: string, options?: DiscoverySearchOptions): DiscoveryHit[];
  /** Stops following the registry (the index keeps its current content). */
  close(): void;
}

/**
 * Indexes every skill of the registry, then follows its `onChange` events so that a skill
 * added or removed is findable (or gone) on the very next search, without a rebuild.
 */
export function createDiscovery(registry: SkillRegistry, options: { retriever?: Retriever } = {}): Discovery {
  const index = new DiscoveryIndex(options.retriever);
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
    close: unsubscribe,
  };
}

/**
 * An index over description-only records (evaluation sets, outside catalogs), ranked
 * exactly as the registry's skills are.
 */
export function createDiscoveryIndex(
  records: Iterable<DescriptionRecord>,
  options: { retriever?: Retriever } = {},
): DiscoveryIndex {
  const index = new DiscoveryIndex(options.retriever);
  for (const record of records) index.add(recordToDocument(record));
  return index;
}
