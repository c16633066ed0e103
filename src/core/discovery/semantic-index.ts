import type { EmbeddingStore } from "../ports.js";
import type { SkillDocument } from "./document.js";
import type { TextEmbedder } from "./embedder.js";
import { semanticText, textHash } from "./semantic-text.js";
import { VectorIndex } from "./vector-index.js";

/** Skills embedded per model call: large enough to amortise a call, small enough to yield often. */
const EMBED_BATCH = 32;

/** Why semantic matching is or is not part of ranking right now. */
export type SemanticState = "ready" | "loading" | "failed";

interface Pending {
  id: string;
  text: string;
  hash: string;
}

/**
 * The semantic side of discovery: a unit vector per skill, from the embedding cache when
 * the same text was embedded before (by this process or another), else from the model,
 * in the background and in batches, so adding 10k skills never blocks a request. A skill
 * not yet embedded is simply ranked without semantic evidence until it is.
 */
export class SemanticIndex {
  readonly vectors: VectorIndex;
  private readonly pending = new Map<string, Pending>();
  private draining: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly embedder: TextEmbedder,
    private readonly cache: EmbeddingStore | undefined,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.vectors = new VectorIndex(embedder.dimensions);
  }

  get state(): SemanticState {
    if (this.failure !== undefined) return "failed";
    return this.embedder.loaded ? "ready" : "loading";
  }

  /** Loads the model and embeds what is pending; never rejects (failure sets `state`). */
  start(): Promise<void> {
    return this.embedder.load().then(
      () => this.drain(),
      (err: unknown) => {
        this.failure = err;
        this.onError(err);
      },
    );
  }

  add(document: SkillDocument): void {
    const text = semanticText(document);
    this.vectors.remove(document.id);
    this.pending.set(document.id, { id: document.id, text, hash: textHash(text) });
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

  /** The query's unit vector; throws when the model is not ready (callers check `state`). */
  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.embedder.embed([query]);
    if (!vector) throw new Error("the embedder returned no vector");
    return vector;
  }

  private drain(): Promise<void> {
    this.draining ??= this.embedPending()
      .catch((err: unknown) => {
        // A model that fails once is not retried in a loop: ranking stays lexical.
        this.failure = err;
        this.onError(err);
      })
      .finally(() => {
        this.draining = undefined;
        if (this.pending.size > 0 && this.failure === undefined) void this.drain();
      });
    return this.draining;
  }

  private async embedPending(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = [...this.pending.values()].slice(0, EMBED_BATCH * 8);
      const cached = new Map(
        (
          await this.cache?.getMany(
            this.embedder.modelId,
            batch.map((item) => item.hash),
          )
        )?.map((entry) => [entry.textHash, entry.vector]) ?? [],
      );
      const missing = batch.filter((item) => !cached.has(item.hash));
      for (let start = 0; start < missing.length; start += EMBED_BATCH) {
        const slice = missing.slice(start, start + EMBED_BATCH);
        const vectors = await this.embedder.embed(slice.map((item) => item.text));
        const fresh = slice.map((item, index) => ({
          textHash: item.hash,
          vector: vectors[index] as Float32Array,
        }));
        await this.cache?.putMany(this.embedder.modelId, fresh);
        for (const entry of fresh) cached.set(entry.textHash, entry.vector);
      }
      for (const item of batch) {
        // Skip items removed or changed while the model was busy: their newer state is pending.
        if (this.pending.get(item.id) !== item) continue;
        const vector = cached.get(item.hash);
        if (vector) this.vectors.set(item.id, vector);
        this.pending.delete(item.id);
      }
    }
  }
}
