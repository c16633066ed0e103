import type { EmbeddingStore } from "../ports.js";
import { collapseWhitespace } from "./collapse-whitespace.js";
import type { SkillDocument } from "./document.js";
import type { TextEmbedder } from "./embedder.js";
import { exampleRequests, semanticText, skillVector, textHash } from "./semantic-text.js";
import { VectorIndex } from "./vector-index.js";

/** Skills embedded per model call: large enough to amortise a call, small enough to yield often. */
const EMBED_BATCH = 32;

/**
 * Other texts (learned queries) embedded per model call while discovers are answered: the
 * model's thread answers in arrival order, and a pass of 32 such texts held it ~1.3 s (odd
 * characters make many tokens), which every discover arriving meanwhile waited (1.7 s).
 * Eight make passes of a few hundred milliseconds, between which queries get their turn.
 */
const LIVE_EMBED_BATCH = 8;

/**
 * A model lost (its thread died) is loaded again after this long, this many times within
 * `LOSS_WINDOW_MS` at most: past that, something kills it each time, and loading it again
 * (a second of CPU) would go on for ever. Discovery ranks lexically meanwhile.
 */
const RELOAD_DELAY_MS = 1_000;
const MAX_LOSSES = 3;
const LOSS_WINDOW_MS = 60 * 60_000;

/**
 * Query vectors kept in memory by default: an execution following a discover learns from
 * the same query, and agents repeat queries; 1,000 vectors of 512 floats are 2 MB.
 */
const DEFAULT_RECENT_QUERIES = 1_000;

export interface SemanticIndexOptions {
  /** Query vectors remembered (least recently used dropped); 0 embeds every query anew (benchmarks). */
  recentQueries?: number;
}

/** Why semantic matching is or is not part of ranking right now. */
export const SEMANTIC_STATES = ["ready", "loading", "failed"] as const;
/** Why one answer was ranked without it although the model is ready: `wouldWait`. */
export const SEMANTIC_BUSY = "busy";
export type SemanticState = (typeof SEMANTIC_STATES)[number];
/** What went wrong with the model, for the log (see the constructor). */
export type ModelProblem = "failed" | "reloading" | "query";

/** A text to embed, with its cache key. */
interface TextToEmbed {
  text: string;
  hash: string;
}

/** A skill waiting for its vector: its text and its example requests (see `skillVector`). */
interface PendingSkill {
  id: string;
  text: TextToEmbed;
  examples: TextToEmbed[];
}

function toEmbed(text: string): TextToEmbed {
  return { text, hash: textHash(text) };
}

/**
 * The semantic side of discovery: a unit vector per skill, blended from the vectors of its
 * text and of its example requests (`skillVector`). Each text's vector comes from the
 * embedding cache when it was embedded before (by this process or another), else from the model,
 * in the background and in batches, so adding 10k skills never blocks a request. A skill
 * not yet embedded is simply ranked without semantic evidence until it is.
 */
export class SemanticIndex {
  readonly vectors: VectorIndex;
  private readonly pending = new Map<string, PendingSkill>();
  private draining: Promise<void> | undefined;
  private failure: unknown;
  /**
   * Recently embedded queries by owner and text (`recentKey`), least recently used first
   * (a Map keeps insertion order). Keyed by owner because a reused vector answers in well
   * under a millisecond where the model takes 10–35 ms, and `took_ms` shows the
   * difference: a cache shared by every owner told one owner whether another had just
   * sent a given query (an invoice number, a customer's name). README: an owner's queries
   * count for that owner only.
   */
  private readonly recentQueries = new Map<string, Float32Array>();

  private readonly recentLimit: number;
  /** The catalog present at start is embedded (see `state`). */
  private started = false;
  /** When the model was lost within `LOSS_WINDOW_MS`, oldest first. */
  private losses: number[] = [];

  /**
   * `onError` hears of a model that failed (`failed`: ranking stays lexical), was lost and
   * is being loaded again (`reloading`), or failed one query (`query`: answered lexically).
   */
  constructor(
    private readonly embedder: TextEmbedder,
    private readonly cache: EmbeddingStore | undefined,
    private readonly onError: (err: unknown, what: ModelProblem) => void = () => {},
    options: SemanticIndexOptions = {},
  ) {
    this.vectors = new VectorIndex(embedder.dimensions);
    this.recentLimit = options.recentQueries ?? DEFAULT_RECENT_QUERIES;
    embedder.onLost = (err) => this.reloadLost(err);
  }

  /**
   * `ready` once the model is loaded and the skills present at start have their vectors:
   * a query embedded before that waits behind the whole catalog on the model's thread
   * (seconds), while a lexical answer takes milliseconds. Skills added later are embedded
   * in the background and ranked without semantic evidence meanwhile.
   */
  get state(): SemanticState {
    if (this.failure !== undefined) return "failed";
    return this.embedder.loaded && this.started ? "ready" : "loading";
  }

  /** Loads the model and embeds what is pending; never rejects (failure sets `state`). */
  start(): Promise<void> {
    return this.embedder.load().then(
      async () => {
        await this.drain();
        this.started = true;
      },
      (err: unknown) => {
        this.failure = err;
        this.onError(err, "failed");
      },
    );
  }

  /**
   * The model stopped answering (its thread died): the vectors made so far are kept, and
   * the model is loaded again shortly (`state` says `loading` meanwhile); skills added
   * meanwhile are embedded once it is back.
   */
  private reloadLost(err: Error): void {
    const now = Date.now();
    this.losses = [...this.losses.filter((at) => now - at < LOSS_WINDOW_MS), now];
    if (this.losses.length > MAX_LOSSES) {
      const message = `the model stopped ${this.losses.length} times within an hour: not loaded again`;
      this.failure = new Error(message, { cause: err });
      this.onError(this.failure, "failed");
      return;
    }
    this.onError(err, "reloading");
    setTimeout(() => void this.start(), RELOAD_DELAY_MS).unref();
  }

  add(document: SkillDocument): void {
    this.vectors.remove(document.id);
    this.pending.set(document.id, {
      id: document.id,
      text: toEmbed(semanticText(document)),
      examples: exampleRequests(document).map(toEmbed),
    });
    if (this.embedder.loaded) void this.drain();
  }

  remove(id: string): void {
    this.pending.delete(id);
    this.vectors.remove(id);
  }

  /** Resolves once every skill added so far has its vector (or embedding failed). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /**
   * True when embedding `query` would queue it behind a whole pass of the model's work
   * (`TextEmbedder.busy`; the shipped model's is ~0.3 s for short texts, and under a steady
   * stream of new queries the wait grew for as long as the stream lasted), unless `owner`'s
   * recent queries hold its vector: the discover is then answered lexically at once.
   */
  wouldWait(query: string, owner?: string): boolean {
    return this.embedder.busy === true && this.recentVector(query, owner) === undefined;
  }

  /** `owner`'s recent vector of `query`, if it is kept (a discover embedded it): never the model's work. */
  recentVector(query: string, owner?: string): Float32Array | undefined {
    return this.recentQueries.get(recentKey(owner, collapseWhitespace(query)));
  }

  /**
   * The unit vector of the query's words however spaced (`collapseWhitespace`), reused only
   * from `owner`'s recent queries (absent: the queries of callers with no owner, such as the
   * dashboard); throws when the model is not ready (callers check `state`).
   */
  async embedQuery(query: string, owner?: string): Promise<Float32Array> {
    const text = collapseWhitespace(query);
    const key = recentKey(owner, text);
    const recent = this.recentQueries.get(key);
    if (recent) {
      this.recentQueries.delete(key);
      this.recentQueries.set(key, recent);
      return recent;
    }
    const [vector] = await this.embedder.embed([text]).catch((err: unknown) => {
      // A lost model was said so already (`reloadLost`).
      if (this.embedder.loaded) this.onError(err, "query");
      throw err;
    });
    if (!vector) throw new Error("the embedder returned no vector");
    this.rememberQuery(key, vector);
    return vector;
  }

  /**
   * Unit vectors of texts other than skills (queries learned from use): from `owner`'s
   * recent queries (never another owner's; absent: those of callers with no owner, as in
   * `embedQuery`), then the embedding cache, then the model (whose answers are cached).
   * Throws when the model is not ready.
   */
  async embedTexts(texts: readonly string[], owner?: string): Promise<Float32Array[]> {
    const found = new Map<string, Float32Array>();
    const rest: TextToEmbed[] = [];
    for (const text of new Set(texts)) {
      const recent = this.recentQueries.get(recentKey(owner, text));
      if (recent) found.set(text, recent);
      else rest.push(toEmbed(text));
    }
    const vectors = await this.cachedVectors(rest, LIVE_EMBED_BATCH);
    for (const item of rest) {
      const vector = vectors.get(item.hash);
      if (vector) found.set(item.text, vector);
    }
    return texts.map((text) => {
      const vector = found.get(text);
      if (!vector) throw new Error("the embedder returned no vector");
      return vector;
    });
  }

  private rememberQuery(key: string, vector: Float32Array): void {
    if (this.recentLimit <= 0) return;
    this.recentQueries.set(key, vector);
    if (this.recentQueries.size > this.recentLimit) {
      const oldest = this.recentQueries.keys().next().value;
      if (oldest !== undefined) this.recentQueries.delete(oldest);
    }
  }

  private drain(): Promise<void> {
    this.draining ??= this.embedPending()
      .catch((err: unknown) => {
        // A model lost meanwhile is loaded again, and drains what is left (`reloadLost`).
        if (!this.embedder.loaded) return;
        // A model that fails once is not retried in a loop: ranking stays lexical.
        this.failure = err;
        this.onError(err, "failed");
      })
      .finally(() => {
        this.draining = undefined;
        if (this.pending.size > 0 && this.failure === undefined && this.embedder.loaded) void this.drain();
      });
    return this.draining;
  }

  private async embedPending(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = [...this.pending.values()].slice(0, EMBED_BATCH * 8);
      const vectors = await this.cachedVectors(batch.flatMap((item) => [item.text, ...item.examples]));
      for (const item of batch) {
        // Skip items removed or changed while the model was busy: their newer state is pending.
        if (this.pending.get(item.id) !== item) continue;
        const text = vectors.get(item.text.hash);
        const examples = item.examples.flatMap((example) => vectors.get(example.hash) ?? []);
        if (text) this.vectors.set(item.id, skillVector(text, examples));
        this.pending.delete(item.id);
      }
    }
  }

  /** Vectors by text hash: from the cache, else from the model in batches (then cached). */
  private async cachedVectors(
    items: readonly TextToEmbed[],
    batchSize = EMBED_BATCH,
  ): Promise<Map<string, Float32Array>> {
    const cached = new Map(
      (
        await this.cache?.getMany(
          this.embedder.modelId,
          items.map((item) => item.hash),
        )
      )?.map((entry) => [entry.textHash, entry.vector]) ?? [],
    );
    const missing = [
      ...new Map(items.filter((item) => !cached.has(item.hash)).map((item) => [item.hash, item])).values(),
    ];
    for (let start = 0; start < missing.length; start += batchSize) {
      const slice = missing.slice(start, start + batchSize);
      const vectors = await this.embedder.embed(slice.map((item) => item.text));
      const fresh = slice.map((item, index) => ({
        textHash: item.hash,
        vector: vectors[index] as Float32Array,
      }));
      await this.cache?.putMany(this.embedder.modelId, fresh);
      for (const entry of fresh) cached.set(entry.textHash, entry.vector);
    }
    return cached;
  }
}

/** The recent-query cache's key: owner and text, unambiguous whatever either holds (a NUL, a quote). */
function recentKey(owner: string | undefined, text: string): string {
  return JSON.stringify([owner ?? null, text]);
}
