import type { CachedEmbedding, EmbeddingStore } from "../../core/ports.js";
import { tableKey } from "./table-key.js";

/** Embedding vectors by (model, text hash), each stored and returned as a copy of its own. */
export class InMemoryEmbeddingStore implements EmbeddingStore {
  constructor(private readonly vectors: Map<string, Float32Array>) {}

  async getMany(model: string, textHashes: readonly string[]): Promise<CachedEmbedding[]> {
    const found: CachedEmbedding[] = [];
    for (const textHash of new Set(textHashes)) {
      const vector = this.vectors.get(tableKey(model, textHash));
      if (vector) found.push({ textHash, vector: vector.slice() });
    }
    return found;
  }

  async putMany(model: string, embeddings: readonly CachedEmbedding[]): Promise<void> {
    for (const { textHash, vector } of embeddings)
      this.vectors.set(tableKey(model, textHash), vector.slice());
  }
}
