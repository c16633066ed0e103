import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../contract/harness.js";
import { runNode } from "../mcp/mcp-clients.js";

// The model's thread must wait for its WebAssembly backend before loading the model: on a
// busy machine the backend can be ready after the weights are read, and the model then
// failed to load ("Backend 'wasm' has not yet been initialized"), leaving discovery
// lexical for the life of the process.
describe("the embedding model's thread", () => {
  it("loads the model when the WebAssembly backend starts slower than the weights are read", async () => {
    const embedder = join(REPO_ROOT, "dist/src/embeddings/use-lite-embedder.js");
    const script = `
      const { UseLiteEmbedder } = await import(${JSON.stringify(embedder)});
      const model = new UseLiteEmbedder();
      try {
        await model.load();
        const [vector] = await model.embed(["send a message to a channel"]);
        console.log(JSON.stringify({ dimensions: vector.length }));
      } catch (err) {
        console.log(JSON.stringify({ error: err.message }));
      }
      await model.close();`;
    const dir = await mkdtemp(join(tmpdir(), "skillport-model-load-"));
    const file = join(dir, "load.mjs");
    await writeFile(file, script);
    const { code, stdout } = await runNode(
      ["--require", join(REPO_ROOT, "test/embeddings/slow-wasm.cjs"), file],
      {},
    ).finally(() => rm(dir, { recursive: true, force: true }));
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ dimensions: 512 });
  });
});
