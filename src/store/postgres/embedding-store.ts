import type pg from "pg";
import type { CachedEmbedding, EmbeddingStore } from "../../core/ports.js";

/**
 * Embedding vectors as float32 bytes (`bytea`), shared by every replica: discovery embeds a
 * skill's text once per model for the whole deployment.
 */
export class PostgresEmbeddingStore implements EmbeddingStore {
  constructor(private readonly pool: pg.Pool) {}

  async getMany(model: string, textHashes: readonly string[]): Promise<CachedEmbedding[]> {
    if (textHashes.length === 0) return [];
    const { rows } = await this.pool.query<{ text_hash: string; vector: Buffer }>(
      "select text_hash, vector from embeddings where model = $1 and text_hash = any($2)",
      [model, [...textHashes]],
    );
    return rows.map((row) => ({ textHash: row.text_hash, vector: toFloat32(row.vector) }));
  }

  /** One statement for the whole batch (unnest of two arrays). */
  async putMany(model: string, embeddings: readonly CachedEmbedding[]): Promise<void> {
    if (embeddings.length === 0) return;
    await this.pool.query(
      `insert into embeddings (model, text_hash, vector)
       select $1, hash, vector from unnest($2::text[], $3::bytea[]) as t(hash, vector)
       on conflict (model, text_hash) do update set vector = excluded.vector`,
      [
        model,
        embeddings.map((e) => e.textHash),
        embeddings.map((e) => Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength)),
      ],
    );
  }
}

/** A copy, aligned for Float32Array (a Buffer from pg may start at any byte offset). */
function toFloat32(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
