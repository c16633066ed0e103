import type { LearnedQuery } from "../ports.js";
import { Bm25fRetriever } from "./bm25f.js";
import type { SkillDocument } from "./document.js";
import { analyze } from "./text-analysis.js";
import { VectorIndex } from "./vector-index.js";

/** What one owner's past queries say about one skill for the current query. */
export interface UsageSignal {
  /** Highest cosine of the query to a past query that led to the skill; absent without vectors. */
  semantic?: number;
  /** BM25F share of the query covered by the skill's past queries taken together, in [0, 1]. */
  lexical: number;
  /** The semantically nearest past query, when vectors exist. */
  nearest?: PastQuery;
}

/** A past query that led the owner to a skill, and how many times. */
export interface PastQuery {
  query: string;
  count: number;
}

interface Entry {
  skillId: string;
  query: string;
  count: number;
  lastAt: number;
  /**
   * The query's analysed terms (for telling which past query matched lexically), analysed
   * when first asked: only the skills a search shows ask, and analysing every query up
   * front, as the skill's document is analysed anyway, doubled the cost of reading an
   * owner's queries.
   */
  terms?: ReadonlySet<string>;
  /** Key of the query's vector in `vectors`, when it has one. */
  vectorKey?: string;
}

const byMostRecent = (a: Entry, b: Entry): number => b.lastAt - a.lastAt;

/** Past-query neighbours looked at per search: enough to cover the skills that matter. */
const NEIGHBOURS = 200;

/** The past queries of one skill as one document: BM25F reads them like a skill's examples. */
function skillDocument(skillId: string, queries: readonly string[]): SkillDocument {
  return {
    id: skillId,
    tags: [],
    fields: {
      id: "",
      title: "",
      tags: "",
      description: "",
      params: "",
      examples: queries.join("\n"),
      extra: "",
    },
  };
}

/**
 * One owner's learned queries, searchable (issue 6, learning from use): a BM25F index with
 * one document per skill made of the queries that led the owner to execute it, and the
 * queries' unit vectors for nearest-neighbour evidence. Held in memory per owner by
 * `UsageLearning`; bounded by the store's caps.
 */
export class UsageEvidence {
  private readonly lexical = new Bm25fRetriever();
  private readonly vectors: VectorIndex | undefined;
  private readonly bySkill = new Map<string, Entry[]>();
  private readonly byVectorKey = new Map<string, Entry>();
  private nextVectorKey = 0;
  private entryCount = 0;

  /**
   * @param dimensions of the query vectors; absent when discovery is lexical.
   * @param perSkill queries kept per skill (the least recently executed go first), as in the store.
   */
  constructor(
    dimensions: number | undefined,
    private readonly perSkill: number,
  ) {
    this.vectors = dimensions === undefined ? undefined : new VectorIndex(dimensions);
  }

  /** Number of past queries held. */
  get size(): number {
    return this.entryCount;
  }

  /** Dimensions of the query vectors held; undefined when built without vectors. */
  get dimensions(): number | undefined {
    return this.vectors?.dimensions;
  }

  /** True when every past query has its vector (false when built without vectors). */
  get complete(): boolean {
    return this.vectors !== undefined && this.vectors.size === this.entryCount;
  }

  /** How many times (query → skill) was learned; 0 when it is not held. */
  countOf(skillId: string, query: string): number {
    return this.entryOf(skillId, query)?.count ?? 0;
  }

  private entryOf(skillId: string, query: string): Entry | undefined {
    return this.bySkill.get(skillId)?.find((entry) => entry.query === query);
  }

  /**
   * Adds a learned query, or updates the same (skill, query): its count and time, and its
   * vector when one is given. A skill over the cap loses its least recently executed query.
   */
  add(learned: LearnedQuery, vector?: Float32Array): void {
    this.upsert(learned, vector);
    this.trimAndIndex(learned.skillId);
  }

  /**
   * Makes this evidence hold exactly `learned` (an owner's queries, read from the store),
   * with `vectors` at the same index (none needed for a query held with its vector,
   * `hasVector`): what adding them one by one to a new evidence would hold. Each skill is
   * indexed once, after all its queries are in (added one by one, a skill's document, all
   * its queries, was analysed again for each: a second for an owner at the caps, during
   * which the process answered nothing), and only when its set of queries changed: a
   * refresh (every 30 s while the owner searches) rebuilt every skill, ~60 ms of the event
   * loop at the caps, when a few had changed.
   */
  replaceAll(learned: readonly LearnedQuery[], vectors?: readonly (Float32Array | undefined)[]): void {
    const wanted = new Map<string, number[]>();
    learned.forEach((entry, index) => {
      const rows = wanted.get(entry.skillId);
      if (rows) rows.push(index);
      else wanted.set(entry.skillId, [index]);
    });
    for (const skillId of this.bySkill.keys()) {
      if (!wanted.has(skillId)) this.removeSkill(skillId);
    }
    for (const [skillId, rows] of wanted) {
      const queries = new Set(rows.map((index) => learned[index]?.query));
      const held = this.bySkill.get(skillId) ?? [];
      const kept = held.filter((entry) => queries.has(entry.query));
      const unchanged =
        queries.size <= this.perSkill && kept.length === held.length && held.length === queries.size;
      for (const entry of held) if (!queries.has(entry.query)) this.forget(entry);
      this.bySkill.set(skillId, kept);
      for (const index of rows) {
        const row = learned[index] as LearnedQuery;
        // The store's time, as a new evidence would hold it (`add` keeps the later one).
        this.upsert(row, vectors?.[index]).lastAt = row.lastAt;
      }
      if (unchanged) this.bySkill.get(skillId)?.sort(byMostRecent);
      else this.trimAndIndex(skillId);
    }
  }

  /**
   * The evidence for each skill with any, given the query (and its vector in hybrid
   * mode), among the skills `filter` accepts.
   */
  signals(
    query: string,
    queryVector?: Float32Array,
    filter?: (id: string) => boolean,
  ): Map<string, UsageSignal> {
    const signals = new Map<string, UsageSignal>();
    if (this.entryCount === 0) return signals;
    for (const { id, score } of this.lexical.search(query, {
      limit: this.bySkill.size,
      ...(filter && { filter }),
    })) {
      signals.set(id, { lexical: score });
    }
    if (queryVector && this.vectors && this.vectors.size > 0) {
      // The filter asked once per skill, not once per past query (thousands of them); and
      // not at all per past query when it accepts every skill, as it mostly does.
      const refused = filter && [...this.bySkill.keys()].filter((skillId) => !filter(skillId));
      const accepts =
        refused && refused.length > 0
          ? (key: string) => !refused.includes(this.byVectorKey.get(key)?.skillId ?? "")
          : undefined;
      for (const { id: key, score } of this.vectors.search(queryVector, NEIGHBOURS, accepts)) {
        const entry = this.byVectorKey.get(key);
        if (!entry) continue;
        const signal = signals.get(entry.skillId);
        if (signal?.semantic !== undefined) continue; // neighbours come best first
        signals.set(entry.skillId, {
          lexical: signal?.lexical ?? 0,
          semantic: score,
          nearest: { query: entry.query, count: entry.count },
        });
      }
    }
    return signals;
  }

  /** True when (skill, query) is held with its vector: given again to `replaceAll`, it needs none. */
  hasVector(skillId: string, query: string): boolean {
    return this.entryOf(skillId, query)?.vectorKey !== undefined;
  }

  /**
   * The past query to show for a skill's signal: the nearest one, else the one sharing
   * most analysed terms with the query (ties: the most recent). Asked only for the skills
   * shown, so a search does not scan every past query.
   */
  pastQueryFor(skillId: string, query: string, signal: UsageSignal): PastQuery | undefined {
    if (signal.nearest) return signal.nearest;
    const queryTerms = analyze(query);
    let best: Entry | undefined;
    let bestShared = -1;
    for (const entry of this.bySkill.get(skillId) ?? []) {
      entry.terms ??= new Set(analyze(entry.query));
      const terms = entry.terms;
      const shared = queryTerms.filter((term) => terms.has(term)).length;
      if (shared > bestShared) {
        best = entry;
        bestShared = shared;
      }
    }
    return best && { query: best.query, count: best.count };
  }

  /** Adds or updates one past query, without trimming or indexing its skill (`trimAndIndex`). */
  private upsert(learned: LearnedQuery, vector?: Float32Array): Entry {
    let entries = this.bySkill.get(learned.skillId);
    if (!entries) {
      entries = [];
      this.bySkill.set(learned.skillId, entries);
    }
    let entry = entries.find((candidate) => candidate.query === learned.query);
    if (entry) {
      entry.count = learned.count;
      entry.lastAt = Math.max(entry.lastAt, learned.lastAt);
    } else {
      entry = {
        skillId: learned.skillId,
        query: learned.query,
        count: learned.count,
        lastAt: learned.lastAt,
      };
      entries.push(entry);
      this.entryCount += 1;
    }
    if (vector && this.vectors) {
      entry.vectorKey ??= String(this.nextVectorKey++);
      this.vectors.set(entry.vectorKey, vector);
      this.byVectorKey.set(entry.vectorKey, entry);
    }
    return entry;
  }

  /** Keeps a skill's most recently executed queries up to the cap, and indexes them as its document. */
  private trimAndIndex(skillId: string): void {
    const entries = this.bySkill.get(skillId) ?? [];
    entries.sort(byMostRecent);
    for (const dropped of entries.splice(this.perSkill)) this.forget(dropped);
    this.lexical.add(
      skillDocument(
        skillId,
        entries.map((kept) => kept.query),
      ),
    );
  }

  private removeSkill(skillId: string): void {
    for (const entry of this.bySkill.get(skillId) ?? []) this.forget(entry);
    this.bySkill.delete(skillId);
    this.lexical.remove(skillId);
  }

  private forget(entry: Entry): void {
    this.entryCount -= 1;
    if (entry.vectorKey === undefined) return;
    this.vectors?.remove(entry.vectorKey);
    this.byVectorKey.delete(entry.vectorKey);
  }
}
