import type { SkillDocument } from "./document.js";
import type { MatchedFields } from "./match-evidence.js";

/** A document id with its relevance to a query, in (0, 1]; higher is better. */
export interface ScoredId {
  id: string;
  score: number;
}

export interface RetrieverSearchOptions {
  /** At most this many results. */
  limit: number;
  /**
   * Keeps only the ids it accepts; applied before the top `limit` are taken. It must not
   * search the same retriever (retrievers reuse scratch buffers across searches).
   */
  filter?: (id: string) => boolean;
}

/**
 * The best documents of the whole index and, from the same scoring pass, the best of
 * those a filter accepts: a filtered discover is ranked against the unfiltered one.
 */
export interface ScoredWithin {
  /** As `search` without a filter. */
  all: ScoredId[];
  /** As `search` with the filter. */
  within: ScoredId[];
}

/**
 * One way of ranking skills for a query (lexical BM25F now; embeddings and usage signals
 * later). Retrievers are kept up to date one document at a time, never rebuilt, and a
 * fusing retriever can combine several behind this same interface.
 */
export interface Retriever {
  /** Number of documents held. */
  readonly size: number;
  /** Adds a document, replacing any document with the same id. */
  add(document: SkillDocument): void;
  /** Removes a document; false if it was not there. */
  remove(id: string): boolean;
  has(id: string): boolean;
  /**
   * Best documents first, each with a score in (0, 1] whose meaning the retriever
   * documents. A query with no usable term (e.g. only stop words) yields `[]`.
   */
  search(query: string, options: RetrieverSearchOptions): ScoredId[];
  /** `search` with and without `within` as filter, at the cost of one search. */
  searchWithin(query: string, limit: number, within: (id: string) => boolean): ScoredWithin;
  /** Which words of `query` matched a document, by field: one query, any number of documents. */
  explainer(query: string): (id: string) => MatchedFields;
}
