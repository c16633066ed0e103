import { afterAll, describe, expect, it } from "vitest";
import { createDiscoveryIndex } from "../../src/core/discovery/discovery-index.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { MAX_BATCH_CHARS, MAX_BATCH_TEXTS } from "../../src/embeddings/embedding-worker-source.js";
import { UseLiteEmbedder } from "../../src/embeddings/use-lite-embedder.js";
import { hashVector } from "./hash-vector.js";

const records = [
  { id: "weather", name: "WeatherNow", description: "Current conditions and forecasts for a city." },
  { id: "pizza", name: "PizzaOrder", description: "Order a pizza for delivery." },
];

/**
 * A stand-in model (vectors from a hash of the text) that answers only while its gate is
 * open, busy as the shipped one is: once a whole pass of texts waits.
 */
class GatedEmbedder implements TextEmbedder {
  readonly modelId = "gated-test-1";
  readonly dimensions = 8;
  loaded = false;
  backlog = 0;
  get busy(): boolean {
    return this.backlog >= MAX_BATCH_TEXTS;
  }
  private gate: Promise<void> = Promise.resolve();
  private open = () => {};

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  release(): void {
    this.open();
  }
  async load(): Promise<void> {
    this.loaded = true;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.backlog += texts.length;
    await this.gate;
    this.backlog -= texts.length;
    return texts.map((text) => hashVector(text, this.dimensions));
  }
  async close(): Promise<void> {}
}

async function readyIndex() {
  const embedder = new GatedEmbedder();
  const semantic = new SemanticIndex(embedder, undefined);
  const index = createDiscoveryIndex(records, { semantic });
  await semantic.start();
  return { embedder, semantic, index };
}

/**
 * Queues `count` texts on the model (learned queries read in the background, other owners'
 * queries), and resolves with their answer once they wait on it.
 */
async function fillBacklog(embedder: GatedEmbedder, semantic: SemanticIndex, count: number) {
  // One call per text: one call sends at most one batch (32) at a time.
  const answered = Promise.all(
    Array.from({ length: count }, (_, i) => semantic.embedTexts([`background text ${i}`], `owner ${i}`)),
  );
  while (embedder.backlog < count) await new Promise((resolve) => setImmediate(resolve));
  return { answered };
}

// A query queued behind a steady stream of others waited 1.7 s for its vector (8 clients).
describe("discover while the model has a full batch waiting", () => {
  it("answers lexically at once, saying the model is busy, and hybrid again once it has caught up", async () => {
    const { embedder, semantic, index } = await readyIndex();
    embedder.hold();
    const { answered: background } = await fillBacklog(embedder, semantic, 64);
    // Resolves although the model answers nothing while held.
    const busy = await index.search("forecast for Paris", { owner: "alice" });
    expect(busy.ranking).toEqual({ mode: "lexical", semantic: "busy" });
    expect(busy.hits[0]?.skill_id).toBe("weather");
    expect(busy.hits[0]?.match.semantic).toBeUndefined();
    embedder.release();
    await background;
    const after = await index.search("forecast for Paris", { owner: "alice" });
    expect(after.ranking).toEqual({ mode: "hybrid", semantic: "ready" });
    expect(after.hits[0]?.match.semantic).toEqual(expect.any(Number));
  });

  it("queues a query behind fewer texts than the model answers at once", async () => {
    const { embedder, semantic, index } = await readyIndex();
    embedder.hold();
    const { answered: background } = await fillBacklog(embedder, semantic, 63);
    const searching = index.search("forecast for Paris", { owner: "alice" });
    embedder.release();
    expect((await searching).ranking).toEqual({ mode: "hybrid", semantic: "ready" });
    await background;
  });

  it("still ranks hybrid a query whose vector the owner has from a recent discover, and only for that owner", async () => {
    const { embedder, semantic, index } = await readyIndex();
    expect((await index.search("forecast for Paris", { owner: "alice" })).ranking.mode).toBe("hybrid");
    embedder.hold();
    const { answered: background } = await fillBacklog(embedder, semantic, 100);
    expect((await index.search("forecast for Paris", { owner: "alice" })).ranking).toEqual({
      mode: "hybrid",
      semantic: "ready",
    });
    expect((await index.search("forecast for Paris", { owner: "bob" })).ranking).toEqual({
      mode: "lexical",
      semantic: "busy",
    });
    embedder.release();
    await background;
  });

  it("says loading, not busy, while the catalog present at start is being embedded", async () => {
    const embedder = new GatedEmbedder();
    const semantic = new SemanticIndex(embedder, undefined);
    const index = createDiscoveryIndex(records, { semantic });
    embedder.hold();
    const starting = semantic.start();
    const { answered: background } = await fillBacklog(embedder, semantic, 100);
    expect((await index.search("forecast for Paris")).ranking).toEqual({
      mode: "lexical",
      semantic: "loading",
    });
    embedder.release();
    await Promise.all([starting, background]);
  });
});

describe("the shipped model's backlog", () => {
  const model = new UseLiteEmbedder();
  afterAll(() => model.close());

  it("counts the texts sent to its thread and not answered yet", async () => {
    await model.load();
    expect(model.backlog).toBe(0);
    const first = model.embed(["send a message", "convert a unit"]);
    const second = model.embed(["what time is it in Tokyo"]);
    expect(model.backlog).toBe(3);
    await first;
    expect(model.backlog).toBe(1);
    await second;
    expect(model.backlog).toBe(0);
  }, 120_000);

  it("is busy once a whole pass of texts waits, and not with one fewer", async () => {
    await model.load();
    const texts = Array.from({ length: MAX_BATCH_TEXTS - 1 }, (_, i) => `text ${i}`);
    const first = model.embed(texts);
    expect(model.busy).toBe(false);
    const second = model.embed(["one more"]);
    expect(model.busy).toBe(true);
    await Promise.all([first, second]);
    expect(model.busy).toBe(false);
  }, 120_000);

  // 63 queries of 100 characters are ~3 passes (~1.3 s): counting texts alone, a discover
  // queued behind them all.
  it("is busy once a whole pass of characters waits, in however few texts", async () => {
    await model.load();
    const half = "convert celsius to fahrenheit "
      .repeat(MAX_BATCH_CHARS / 60)
      .padEnd(MAX_BATCH_CHARS / 2, ".");
    const first = model.embed([half, half.slice(1)]);
    expect(model.busy).toBe(false);
    const second = model.embed(["x"]);
    expect(model.busy).toBe(true);
    await Promise.all([first, second]);
    expect(model.busy).toBe(false);
    const long = model.embed([half.repeat(4)]);
    expect(model.busy).toBe(true);
    await long;
    expect(model.busy).toBe(false);
  }, 120_000);
});

describe("texts other than the catalog's (learned queries)", () => {
  it("go to the model a few at a time, so that a discover's query is not held behind a long pass", async () => {
    const { embedder, semantic } = await readyIndex();
    const sizes: number[] = [];
    const embed = embedder.embed.bind(embedder);
    embedder.embed = (texts) => {
      sizes.push(texts.length);
      return embed(texts);
    };
    const vectors = await semantic.embedTexts(Array.from({ length: 20 }, (_, i) => `learned query ${i}`));
    expect(vectors).toHaveLength(20);
    expect(sizes).toEqual([8, 8, 4]);
  });
});
