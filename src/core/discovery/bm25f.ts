import { FIELD_NAMES, type FieldName, type SkillDocument } from "./document.js";
import type { MatchedFields } from "./match-evidence.js";
import { PostingList } from "./posting-list.js";
import type { Retriever, RetrieverSearchOptions, ScoredId, ScoredWithin } from "./retriever.js";
import { analyze, analyzeQuery, tokenize, withoutAddresses } from "./text-analysis.js";
import { topK, topKWithin } from "./top-k.js";

/** Weight and length normalisation of one field. */
export interface FieldParameters {
  /** How much one occurrence in this field counts, relative to the description (1). */
  weight: number;
  /** 0: length ignored; 1: frequency fully divided by length relative to the field's average. */
  b: number;
}

export interface Bm25fParameters {
  /** Term-frequency saturation: the higher, the more repeated occurrences keep counting. */
  k1: number;
  fields: Readonly<Record<FieldName, FieldParameters>>;
}

/**
 * Defaults tuned on MetaTool's dev half (test/discovery/metatool-eval.test.ts) by a
 * coarse grid, kept on round values, on a plateau (±0.3 nDCG around them): names (id,
 * title) and tags say what a skill is; examples are phrased like queries; parameters and
 * long model instructions (`extra`) are mostly detail, useful for recall, noisy for
 * precision. A description's length says little about its topicality, hence its low b.
 */
export const DEFAULT_BM25F_PARAMETERS: Bm25fParameters = {
  k1: 1.2,
  fields: {
    id: { weight: 3, b: 0.5 },
    title: { weight: 3, b: 0.5 },
    tags: { weight: 2, b: 0.3 },
    description: { weight: 1, b: 0.3 },
    params: { weight: 1, b: 0.75 },
    examples: { weight: 1.5, b: 0.75 },
    extra: { weight: 0.2, b: 0.75 },
  },
};

const FIELD_COUNT = FIELD_NAMES.length;

interface TermEntry {
  term: string;
  /** Number of documents holding the term in any field. */
  documentFrequency: number;
  /** Postings per field index; undefined where the term never occurs in that field. */
  postings: (PostingList | undefined)[];
}

/**
 * Probabilistic relevance (Lucene's form, never negative): rare terms weigh more.
 * Unknown terms (frequency 0) get the highest weight, which matters only for the
 * normalisation of scores.
 */
function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** Rejects parameters that would make scores meaningless (negative, NaN) rather than rank oddly. */
function validateParameters(parameters: Bm25fParameters): void {
  if (!(parameters.k1 > 0)) throw new RangeError(`BM25F k1 must be > 0, got ${parameters.k1}`);
  for (const name of FIELD_NAMES) {
    const { weight, b } = parameters.fields[name];
    if (!(weight >= 0)) throw new RangeError(`BM25F weight of ${name} must be >= 0, got ${weight}`);
    if (!(b >= 0 && b <= 1)) throw new RangeError(`BM25F b of ${name} must be in [0, 1], got ${b}`);
  }
}

/**
 * Lexical retriever: BM25F (Robertson, Zaragoza & Taylor 2004; Zaragoza et al. 2004).
 * For each query term, a document's field frequencies are each divided by that field's
 * length normalisation `1 - b_f + b_f · len_f / avgLen_f`, weighted by `w_f` and summed
 * into one pseudo-frequency `tf`, saturated once: `idf · tf · (k1 + 1) / (k1 + tf)`.
 * Saturating after combining (not per field) is what keeps a term repeated across title
 * and description from counting twice as much.
 *
 * Score normalisation: a document's score is its BM25F sum divided by the query's ideal
 * score, `Σ idf(t) · (k1 + 1)` over the query's distinct terms (unknown terms included):
 * the share of the query's information the document covers, in (0, 1). It does not
 * depend on the other results, so it means the same whatever else matched; it falls
 * when the query holds words the catalog has never seen.
 *
 * Documents are added and removed one at a time: document frequencies and field length
 * totals are maintained, and averages are read at query time, so nothing is rebuilt.
 */
export class Bm25fRetriever implements Retriever {
  private readonly parameters: Bm25fParameters;
  private readonly terms = new Map<string, TermEntry>();
  private readonly slotById = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private termsBySlot: (TermEntry[] | undefined)[] = [];
  /** Length (in terms) of field f of slot s at `s * FIELD_COUNT + f`. */
  private fieldLengths = new Uint32Array(0);
  private readonly fieldLengthTotals = new Float64Array(FIELD_COUNT);
  // Scratch accumulators reused by every search (search is synchronous, so never shared).
  private termFrequencies = new Float64Array(0);
  private scores = new Float64Array(0);
  private touchedByTerm = new Int32Array(0);
  private touched = new Int32Array(0);
  /** Scratch term counts of the field being added. */
  private readonly fieldFrequencies = new Map<string, number>();

  constructor(parameters: Bm25fParameters = DEFAULT_BM25F_PARAMETERS) {
    validateParameters(parameters);
    this.parameters = parameters;
  }

  get size(): number {
    return this.slotById.size;
  }

  has(id: string): boolean {
    return this.slotById.has(id);
  }

  add(document: SkillDocument): void {
    this.remove(document.id);
    const slot = this.allocateSlot();
    this.ids[slot] = document.id;
    this.slotById.set(document.id, slot);
    const entries = new Set<TermEntry>();
    const frequencies = this.fieldFrequencies;
    for (let fieldIndex = 0; fieldIndex < FIELD_COUNT; fieldIndex += 1) {
      const fieldTerms = analyze(document.fields[FIELD_NAMES[fieldIndex] ?? "description"]);
      this.fieldLengths[slot * FIELD_COUNT + fieldIndex] = fieldTerms.length;
      this.fieldLengthTotals[fieldIndex] = (this.fieldLengthTotals[fieldIndex] ?? 0) + fieldTerms.length;
      frequencies.clear();
      for (const term of fieldTerms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      for (const [term, frequency] of frequencies) {
        const entry = this.entryFor(term);
        let list = entry.postings[fieldIndex];
        if (!list) {
          list = new PostingList();
          entry.postings[fieldIndex] = list;
        }
        list.push(slot, frequency);
        entries.add(entry);
      }
    }
    for (const entry of entries) entry.documentFrequency += 1;
    this.termsBySlot[slot] = [...entries];
  }

  remove(id: string): boolean {
    const slot = this.slotById.get(id);
    if (slot === undefined) return false;
    for (const entry of this.termsBySlot[slot] ?? []) {
      for (const list of entry.postings) list?.remove(slot);
      entry.documentFrequency -= 1;
      if (entry.documentFrequency === 0) this.terms.delete(entry.term);
    }
    for (let fieldIndex = 0; fieldIndex < FIELD_COUNT; fieldIndex += 1) {
      const position = slot * FIELD_COUNT + fieldIndex;
      this.fieldLengthTotals[fieldIndex] =
        (this.fieldLengthTotals[fieldIndex] ?? 0) - (this.fieldLengths[position] ?? 0);
      this.fieldLengths[position] = 0;
    }
    this.termsBySlot[slot] = undefined;
    this.ids[slot] = undefined;
    this.slotById.delete(id);
    this.freeSlots.push(slot);
    return true;
  }

  search(query: string, options: RetrieverSearchOptions): ScoredId[] {
    return this.rank(query, options.limit, options.filter).all;
  }

  searchWithin(query: string, limit: number, within: (id: string) => boolean): ScoredWithin {
    return this.rank(query, limit, undefined, within);
  }

  /** Scores every document holding a query term once, then selects from them. */
  private rank(
    query: string,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
    within?: (id: string) => boolean,
  ): ScoredWithin {
    const documentCount = this.slotById.size;
    const queryTerms = [...new Set(analyzeQuery(query))];
    if (queryTerms.length === 0 || documentCount === 0 || limit <= 0) return { all: [], within: [] };
    const { k1 } = this.parameters;
    let idealScore = 0;
    let touchedCount = 0;
    for (const term of queryTerms) {
      const entry = this.terms.get(term);
      const idf = inverseDocumentFrequency(documentCount, entry?.documentFrequency ?? 0);
      idealScore += idf * (k1 + 1);
      if (!entry) continue;
      const termTouchedCount = this.accumulateTermFrequencies(entry, documentCount);
      for (let index = 0; index < termTouchedCount; index += 1) {
        const slot = this.touchedByTerm[index] ?? 0;
        const frequency = this.termFrequencies[slot] ?? 0;
        this.termFrequencies[slot] = 0;
        if (this.scores[slot] === 0) {
          this.touched[touchedCount] = slot;
          touchedCount += 1;
        }
        this.scores[slot] = (this.scores[slot] ?? 0) + (idf * frequency * (k1 + 1)) / (k1 + frequency);
      }
    }
    return this.collect(touchedCount, idealScore, limit, filter, within);
  }

  /**
   * The words of `query` found in each field of a document (as the query spelled them,
   * lowercase), so a result can say why it matched. The query is analysed once here, not
   * once per result: re-analysing it for each of ten results was a sixth of a discover's CPU.
   */
  explainer(query: string): (id: string) => MatchedFields {
    const words = [...new Set(tokenize(withoutAddresses(query)))].flatMap((word) => {
      const entries = analyze(word).flatMap((term) => this.terms.get(term) ?? []);
      return entries.length > 0 ? [{ word, entries }] : [];
    });
    return (id) => {
      const slot = this.slotById.get(id);
      const matched: MatchedFields = {};
      if (slot === undefined) return matched;
      for (const { word, entries } of words) {
        for (const entry of entries) {
          FIELD_NAMES.forEach((field, fieldIndex) => {
            const list = entry.postings[fieldIndex];
            if (!list || list.indexOf(slot) < 0) return;
            const fieldWords = matched[field] ?? [];
            if (!fieldWords.includes(word)) fieldWords.push(word);
            matched[field] = fieldWords;
          });
        }
      }
      return matched;
    };
  }

  /** Sums the weighted, length-normalised frequencies of one term per document. */
  private accumulateTermFrequencies(entry: TermEntry, documentCount: number): number {
    let touchedCount = 0;
    for (let fieldIndex = 0; fieldIndex < FIELD_COUNT; fieldIndex += 1) {
      const list = entry.postings[fieldIndex];
      const field = this.parameters.fields[FIELD_NAMES[fieldIndex] ?? "description"];
      // A zero weight would leave touched documents at 0, indistinguishable from untouched.
      if (!list || list.length === 0 || field.weight <= 0) continue;
      const averageLength = (this.fieldLengthTotals[fieldIndex] ?? 0) / documentCount;
      const lengthFactor = averageLength > 0 ? field.b / averageLength : 0;
      const { docs, frequencies } = list;
      for (let index = 0; index < list.length; index += 1) {
        const slot = docs[index] ?? 0;
        const length = this.fieldLengths[slot * FIELD_COUNT + fieldIndex] ?? 0;
        const normalisation = 1 - field.b + lengthFactor * length;
        if (this.termFrequencies[slot] === 0) {
          this.touchedByTerm[touchedCount] = slot;
          touchedCount += 1;
        }
        this.termFrequencies[slot] =
          (this.termFrequencies[slot] ?? 0) + (field.weight * (frequencies[index] ?? 0)) / normalisation;
      }
    }
    return touchedCount;
  }

  /**
   * Takes the top results among touched slots (and among those `within` accepts, when
   * given), then resets the accumulators even if the caller's filter throws, so one failed
   * search cannot skew the next.
   */
  private collect(
    touchedCount: number,
    idealScore: number,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
    within: ((id: string) => boolean) | undefined,
  ): ScoredWithin {
    const { scores, ids, touched } = this;
    try {
      // Compacts accepted slots to the front; every rejected or stale position is still
      // below touchedCount, where the finally block zeroes it.
      let kept = 0;
      for (let index = 0; index < touchedCount; index += 1) {
        const slot = touched[index] ?? 0;
        const id = ids[slot];
        if (id !== undefined && (!filter || filter(id))) {
          touched[kept] = slot;
          kept += 1;
        } else {
          scores[slot] = 0;
        }
      }
      const isBetter = (a: number, b: number): boolean => {
        const difference = (scores[a] ?? 0) - (scores[b] ?? 0);
        if (difference !== 0) return difference > 0;
        return (ids[a] ?? "") < (ids[b] ?? "");
      };
      const scored = (slots: number[]): ScoredId[] =>
        slots.map((slot) => ({ id: ids[slot] ?? "", score: Math.min(1, (scores[slot] ?? 0) / idealScore) }));
      if (!within) return { all: scored(topK(touched, kept, limit, isBetter)), within: [] };
      const selected = topKWithin(touched, kept, limit, isBetter, (slot) => within(ids[slot] ?? ""));
      return { all: scored(selected.all), within: scored(selected.within) };
    } finally {
      for (let index = 0; index < touchedCount; index += 1) scores[touched[index] ?? 0] = 0;
    }
  }

  private entryFor(term: string): TermEntry {
    let entry = this.terms.get(term);
    if (!entry) {
      entry = { term, documentFrequency: 0, postings: new Array(FIELD_COUNT).fill(undefined) };
      this.terms.set(term, entry);
    }
    return entry;
  }

  private allocateSlot(): number {
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    const slot = this.ids.length;
    this.ids.push(undefined);
    this.termsBySlot.push(undefined);
    if (slot >= this.scores.length) this.growScratch(Math.max(64, this.scores.length * 2));
    return slot;
  }

  private growScratch(capacity: number): void {
    const fieldLengths = new Uint32Array(capacity * FIELD_COUNT);
    fieldLengths.set(this.fieldLengths);
    this.fieldLengths = fieldLengths;
    this.termFrequencies = new Float64Array(capacity);
    this.scores = new Float64Array(capacity);
    this.touchedByTerm = new Int32Array(capacity);
    this.touched = new Int32Array(capacity);
  }
}
