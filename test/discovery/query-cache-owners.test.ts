import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { CatalogService } from "../../src/core/catalog-service.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { createDiscovery } from "../../src/core/discovery/registry-discovery.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { hashVector } from "./hash-vector.js";

/** A stand-in model: a unit vector from a hash of the text, and a list of what it embedded. */
class HashEmbedder implements TextEmbedder {
  readonly modelId = "hash-test-1";
  readonly dimensions = 16;
  loaded = false;
  readonly embedded: string[] = [];
  async load(): Promise<void> {
    this.loaded = true;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return texts.map((text) => hashVector(text, this.dimensions));
  }
  async close(): Promise<void> {}
}

// Audit 22, discovery #1: the recent query vectors were shared by every owner, so a query
// another owner had just sent answered in 0.6 ms instead of 15–35 ms, and `took_ms` told.
describe("the recent query-vector cache", () => {
  const query = "wire 4120 EUR to supplier Zorblax for invoice 88231";

  async function hybridCatalog() {
    const embedder = new HashEmbedder();
    const registry = new SkillRegistry(builtinSkills);
    const semantic = new SemanticIndex(embedder, undefined);
    const discovery = createDiscovery(registry, { semantic });
    await discovery.start();
    await semantic.idle();
    embedder.embedded.length = 0;
    return { embedder, catalog: new CatalogService(registry, discovery), discovery };
  }
  const timesEmbedded = (embedder: HashEmbedder) => embedder.embedded.filter((text) => text === query).length;

  it("never answers one owner's query from a vector another owner's query left", async () => {
    const { embedder, catalog, discovery } = await hybridCatalog();
    const alice = { id: "key_alice", owner: "alice" };
    const bob = { id: "key_bob", owner: "bob" };
    const first = await catalog.discover({ query, limit: 3 }, alice);
    expect(first.ranking.mode).toBe("hybrid");
    expect(timesEmbedded(embedder)).toBe(1);
    await catalog.discover({ query, limit: 3 }, bob);
    expect(timesEmbedded(embedder)).toBe(2);
    // The dashboard (no caller) has a namespace of its own.
    await catalog.discover({ query, limit: 3 });
    expect(timesEmbedded(embedder)).toBe(3);
    discovery.close();
  });

  it("still reuses an owner's own recent query, from any of its keys", async () => {
    const { embedder, catalog, discovery } = await hybridCatalog();
    await catalog.discover({ query, limit: 3 }, { id: "key_a1", owner: "alice" });
    await catalog.discover({ query, limit: 3 }, { id: "key_a2", owner: "alice" });
    expect(timesEmbedded(embedder)).toBe(1);
    discovery.close();
  });

  it("gives learned texts the same owner's recent vector, never another owner's", async () => {
    const { embedder, discovery } = await hybridCatalog();
    const semantic = discovery.index.semantic;
    if (!semantic) throw new Error("hybrid index expected");
    await semantic.embedQuery(query, "alice");
    await semantic.embedTexts([query], "bob");
    expect(timesEmbedded(embedder)).toBe(2);
    await semantic.embedTexts([query], "alice");
    expect(timesEmbedded(embedder)).toBe(2);
    discovery.close();
  });
});
