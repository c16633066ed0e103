import { describe, expect, it } from "vitest";
import type { StoreHandle } from "./fixtures.js";

const vector = (...values: number[]) => Float32Array.from(values);

/** `EmbeddingStore`: vectors cached by model and text hash. */
export function describeEmbeddingContract(handle: StoreHandle): void {
  describe("embeddings", () => {
    it("returns exactly the vectors stored, bit for bit, and only for known hashes", async () => {
      const { embeddings } = handle.store;
      const a = vector(0.1, -0.25, 1e-7, 3.5);
      const b = vector(Math.fround(Math.PI), 0, -0, 2);
      await embeddings.putMany("model-1", [
        { textHash: "h-a", vector: a },
        { textHash: "h-b", vector: b },
      ]);
      const found = await embeddings.getMany("model-1", ["h-b", "h-missing", "h-a"]);
      const byHash = new Map(found.map((entry) => [entry.textHash, entry.vector]));
      expect(byHash.size).toBe(2);
      expect(byHash.get("h-a")).toEqual(a);
      expect(byHash.get("h-b")).toEqual(b);
    });

    it("keeps models apart and replaces a vector stored again under the same model and hash", async () => {
      const { embeddings } = handle.store;
      await embeddings.putMany("model-1", [{ textHash: "h", vector: vector(1, 2) }]);
      await embeddings.putMany("model-2", [{ textHash: "h", vector: vector(3, 4, 5) }]);
      await embeddings.putMany("model-1", [{ textHash: "h", vector: vector(6, 7) }]);
      expect(await embeddings.getMany("model-1", ["h"])).toEqual([{ textHash: "h", vector: vector(6, 7) }]);
      expect(await embeddings.getMany("model-2", ["h"])).toEqual([
        { textHash: "h", vector: vector(3, 4, 5) },
      ]);
      expect(await embeddings.getMany("model-3", ["h"])).toEqual([]);
    });

    it("looks up more hashes than one query can bind", async () => {
      const { embeddings } = handle.store;
      const entries = Array.from({ length: 1200 }, (_, i) => ({ textHash: `h${i}`, vector: vector(i) }));
      await embeddings.putMany("model-1", entries);
      const found = await embeddings.getMany("model-1", [...entries.map((e) => e.textHash), "none"]);
      expect(found.length).toBe(1200);
      expect(found.find((entry) => entry.textHash === "h1199")?.vector).toEqual(vector(1199));
    });
  });
}
