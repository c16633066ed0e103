import type { CachedEmbedding, EmbeddingStore } from "../../core/ports.js";
import type { BetterSqlite3 as Database } from "./driver.js";

/** SQLite allows 32766 host parameters by default; stay well below it. */
const LOOKUP_CHUNK = 500;

/**
 * Embedding vectors as float32 blobs. Writes go straight to the database (not through the
 * group commit): losing a cached vector in a crash only costs recomputing it.
 */
export class SqliteEmbeddingStore implements EmbeddingStore {
  private readonly upsert: Database.Statement<[string, string, Buffer]>;

  constructor(private readonly db: Database.Database) {
    this.upsert = db.prepare(
      `insert into embeddings (model, text_hash, vector) values (?, ?, ?)
       on conflict (model, text_hash) do update set vector = excluded.vector`,
    );
  }

  async getMany(model: string, textHashes: readonly string[]): Promise<CachedEmbedding[]> {
    const found: CachedEmbedding[] = [];
    for (let start = 0; start < textHashes.length; start += LOOKUP_CHUNK) {
      const chunk = textHashes.slice(start, start + LOOKUP_CHUNK);
      const rows = this.db
        .prepare<string[], { text_hash: string; vector: Buffer }>(
          `select text_hash, vector from embeddings where model = ? and text_hash in (${chunk.map(() => "?").join(",")})`,
        )
        .all(model, ...chunk);
      for (const row of rows) found.push({ textHash: row.text_hash, vector: toFloat32(row.vector) });
    }
    return found;
  }

  async putMany(model: string, embeddings: readonly CachedEmbedding[]): Promise<void> {
    const insertAll = this.db.transaction((entries: readonly CachedEmbedding[]) => {
      for (const { textHash, vector } of entries) {
        this.upsert.run(model, textHash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      }
    });
    insertAll(embeddings);
  }
}

/** A copy, aligned for Float32Array (a Buffer from SQLite may start at any byte offset). */
function toFloat32(blob: Buffer): Float32Array {
  const vector = new Float32Array(blob.byteLength / 4);
  new Uint8Array(vector.buffer).set(blob);
  return vector;
}
