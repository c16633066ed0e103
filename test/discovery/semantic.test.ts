import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscoveryIndex } from "../../src/core/discovery/discovery-index.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { DEFAULT_USAGE_WEIGHTS } from "../../src/core/discovery/fusion.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { UsageEvidence } from "../../src/core/discovery/usage-evidence.js";
import { UseLiteEmbedder } from "../../src/embeddings/use-lite-embedder.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";

const records = [
  { id: "scholar", name: "ScholarSearch", description: "Look up academic literature and journal articles." },
  { id: "weather", name: "WeatherNow", description: "Current conditions and forecasts for a city." },
  { id: "pizza", name: "PizzaOrder", description: "Order a pizza for delivery." },
];

/** The real model, counting how many texts it was asked to embed. */
class CountingEmbedder implements TextEmbedder {
  embedded = 0;
  constructor(private readonly inner: TextEmbedder) {}
  get modelId() {
    return this.inner.modelId;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  get loaded() {
    return this.inner.loaded;
  }
  load() {
    return this.inner.load();
  }
  embed(texts: readonly string[]) {
    this.embedded += texts.length;
    return this.inner.embed(texts);
  }
  close() {
    return this.inner.close();
  }
}

describe("hybrid discovery with the shipped model", () => {
  const model = new UseLiteEmbedder();
  let dir: string;
  let store: SqliteStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "skillport-semantic-"));
    store = openSqliteStore({ dataDir: dir });
  });
  afterAll(async () => {
    await model.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers lexically, and says so, until the model is loaded", async () => {
    const embedder = new CountingEmbedder(model);
    const semantic = new SemanticIndex(embedder, store.embeddings);
    const index = createDiscoveryIndex(records, { semantic });
    if (!model.loaded) {
      const before = await index.search("forecast for Paris");
      expect(before.ranking).toEqual({ mode: "lexical", semantic: "loading" });
      expect(before.hits[0]?.match.semantic).toBeUndefined();
    }
    await semantic.start();
    await semantic.idle();
    const after = await index.search("forecast for Paris");
    expect(after.ranking).toEqual({ mode: "hybrid", semantic: "ready" });
    expect(after.hits[0]?.skill_id).toBe("weather");
    expect(after.hits[0]?.match.semantic).toEqual(expect.any(Number));
  }, 120_000);

  it("answers lexically, and fast, until the skills present at start are embedded, not only the model loaded", async () => {
    await model.load();
    // The model is loaded; embedding the catalog is held until released.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new CountingEmbedder(model);
    const embed = slow.embed.bind(slow);
    slow.embed = async (texts) => {
      await held;
      return embed(texts);
    };
    const semantic = new SemanticIndex(slow, undefined);
    const index = createDiscoveryIndex(records, { semantic });
    const starting = semantic.start();
    const during = await index.search("forecast for Paris");
    expect(during.ranking).toEqual({ mode: "lexical", semantic: "loading" });
    release();
    await starting;
    expect((await index.search("forecast for Paris")).ranking).toEqual({ mode: "hybrid", semantic: "ready" });
  }, 120_000);

  it("finds a skill that shares no word with the query, which lexical ranking cannot", async () => {
    const semantic = new SemanticIndex(model, store.embeddings);
    const index = createDiscoveryIndex(records, { semantic });
    await semantic.start();
    await semantic.idle();
    const query = "can I find peer-reviewed papers on this?";
    expect(index.searchLexical(query, 3).map((hit) => hit.skill_id)).not.toContain("scholar");
    expect((await index.search(query, { limit: 1 })).hits.map((hit) => hit.skill_id)).toEqual(["scholar"]);
    // Tag filters and limits apply to hybrid ranking as to lexical.
    expect((await index.search(query, { limit: 1, tags: ["none"] })).hits).toEqual([]);
  }, 120_000);

  it("embeds each skill text once: a second index on the same store reuses the cached vectors", async () => {
    const first = new CountingEmbedder(model);
    const semanticA = new SemanticIndex(first, store.embeddings);
    createDiscoveryIndex(records, { semantic: semanticA });
    await semanticA.start();
    await semanticA.idle();
    const second = new CountingEmbedder(model);
    const semanticB = new SemanticIndex(second, store.embeddings);
    const index = createDiscoveryIndex(records, { semantic: semanticB });
    await semanticB.start();
    await semanticB.idle();
    expect(second.embedded).toBe(0);
    expect(semanticB.vectors.size).toBe(records.length);
    // A changed skill misses the cache and is embedded anew; a removed one leaves the index.
    index.add({
      ...createDiscoveryIndexDocument("pizza"),
      fields: { ...createDiscoveryIndexDocument("pizza").fields, description: "Bakes bread." },
    });
    await semanticB.idle();
    expect(second.embedded).toBe(1);
    index.remove("weather");
    expect(semanticB.vectors.has("weather")).toBe(false);
  }, 120_000);

  it("remembers recent query vectors, unless told to embed every query anew", async () => {
    const remembering = new CountingEmbedder(model);
    const semantic = new SemanticIndex(remembering, undefined);
    await semantic.start();
    const first = await semantic.embedQuery("forecast for Paris");
    expect(await semantic.embedQuery("forecast for Paris")).toBe(first);
    expect(await semantic.embedTexts(["forecast for Paris"])).toEqual([first]);
    expect(remembering.embedded).toBe(1);
    const forgetting = new CountingEmbedder(model);
    const fresh = new SemanticIndex(forgetting, undefined, undefined, { recentQueries: 0 });
    await fresh.start();
    await fresh.embedQuery("forecast for Paris");
    await fresh.embedQuery("forecast for Paris");
    expect(forgetting.embedded).toBe(2);
  }, 120_000);

  it("counts an owner's past query that means the same as the query, though worded differently", async () => {
    const semantic = new SemanticIndex(model, store.embeddings);
    const index = createDiscoveryIndex(records, { semantic });
    await semantic.start();
    await semantic.idle();
    const query = "something hot for tonight's dinner";
    const plain = await index.search(query);
    const evidence = new UsageEvidence(model.dimensions, 10);
    const past = "what should we eat this evening";
    const [vector] = await semantic.embedTexts([past]);
    evidence.add({ skillId: "pizza", query: past, count: 2, lastAt: 1 }, vector);
    const learned = await index.search(query, { usage: evidence });
    const hit = learned.hits[0];
    expect(hit?.skill_id).toBe("pizza");
    expect(hit?.match.usage).toMatchObject({ query: past, count: 2, lexical: 0 });
    expect(hit?.match.usage?.similarity).toBeGreaterThan(DEFAULT_USAGE_WEIGHTS.similarityFloor);
    expect(hit?.score).toBeGreaterThan(
      plain.hits.find((candidate) => candidate.skill_id === "pizza")?.score ?? 1,
    );
    // An unrelated past query is below the floor and counts for nothing.
    const unrelated = new UsageEvidence(model.dimensions, 10);
    const far = "convert these miles to kilometres";
    const [farVector] = await semantic.embedTexts([far]);
    unrelated.add({ skillId: "weather", query: far, count: 1, lastAt: 1 }, farVector);
    expect((await index.search(query, { usage: unrelated })).hits).toEqual(plain.hits);
  }, 120_000);

  it("answers concurrent requests (batched on the model's thread) exactly as it answers each alone", async () => {
    await model.load();
    const texts = ["forecast for Paris", "order a margherita", "journal articles on coral reefs", "hello"];
    const alone: Float32Array[] = [];
    for (const text of texts) alone.push(...(await model.embed([text])));
    const together = await Promise.all([
      model.embed(texts.slice(0, 2)),
      ...texts.slice(2).map((t) => model.embed([t])),
    ]);
    const flat = together.flat();
    expect(flat).toHaveLength(texts.length);
    flat.forEach((vector, i) => {
      const own = alone[i] as Float32Array;
      const maxDifference = Math.max(...vector.map((value, d) => Math.abs(value - (own[d] as number))));
      expect(maxDifference, texts[i]).toBeLessThan(1e-5);
    });
    // Distinct texts give distinct vectors (each request got its own answer, not a neighbour's).
    expect(flat[0]).not.toEqual(flat[1]);
  }, 120_000);

  // A pass's texts go to the model sorted by length, in calls of bounded padded size (one
  // long text among short ones made each cost as much as it): every vector must still come
  // back to its own text, in the order sent.
  it("answers texts of mixed lengths in one request each with its own vector, in order", async () => {
    await model.load();
    const texts = [
      "convert the temperature from celsius to fahrenheit and send it to the team ".repeat(12),
      "hello",
      "9".repeat(400),
      "forecast for Paris",
      "order a margherita for delivery tonight",
      "x",
    ];
    const alone: Float32Array[] = [];
    for (const text of texts) alone.push(...(await model.embed([text])));
    const together = await model.embed(texts);
    expect(together).toHaveLength(texts.length);
    together.forEach((vector, i) => {
      const own = alone[i] as Float32Array;
      const maxDifference = Math.max(...vector.map((value, d) => Math.abs(value - (own[d] as number))));
      expect(maxDifference, texts[i]).toBeLessThan(1e-5);
    });
  }, 120_000);
});

function createDiscoveryIndexDocument(id: string) {
  const record = records.find((candidate) => candidate.id === id);
  if (!record) throw new Error(id);
  return {
    id,
    tags: [],
    fields: {
      id,
      title: record.name,
      tags: "",
      description: record.description,
      params: "",
      examples: "",
      extra: "",
    },
  };
}
