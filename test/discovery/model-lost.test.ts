import { afterEach, describe, expect, it, vi } from "vitest";
import { createDiscoveryIndex } from "../../src/core/discovery/discovery-index.js";
import { recordToDocument } from "../../src/core/discovery/document.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { hashVector } from "./hash-vector.js";

const records = [
  { id: "weather", name: "WeatherNow", description: "Current conditions and forecasts for a city." },
  { id: "pizza", name: "PizzaOrder", description: "Order a pizza for delivery." },
];

/**
 * A stand-in model whose thread can die (`kill`): what it was embedding fails, `loaded`
 * turns false and `onLost` is called, as the shipped one does; `load` loads it again.
 */
class MortalEmbedder implements TextEmbedder {
  readonly modelId = "mortal-test-1";
  readonly dimensions = 8;
  loaded = false;
  loads = 0;
  onLost?: (err: Error) => void;
  private inFlight: ((err: Error) => void)[] = [];
  /** Holds every `embed` until `kill` (or forever). */
  hang = false;

  async load(): Promise<void> {
    this.loads += 1;
    this.loaded = true;
  }
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (!this.loaded) return Promise.reject(new Error("embedding thread is not running"));
    if (this.hang) return new Promise((_, reject) => this.inFlight.push(reject));
    return Promise.resolve(texts.map((text) => hashVector(text, this.dimensions)));
  }
  kill(): void {
    const err = new Error("embedding thread exited (code 1)");
    this.loaded = false;
    this.hang = false;
    for (const reject of this.inFlight.splice(0)) reject(err);
    this.onLost?.(err);
  }
  async close(): Promise<void> {}
}

async function readyIndex() {
  const embedder = new MortalEmbedder();
  const heard: { message: string; reloading: boolean }[] = [];
  const semantic = new SemanticIndex(embedder, undefined, (err, reloading) =>
    heard.push({ message: (err as Error).message, reloading }),
  );
  const index = createDiscoveryIndex(records, { semantic });
  await semantic.start();
  return { embedder, semantic, index, heard };
}

// A model whose thread died left discovery lexical, saying "loading", until the process
// restarted; a discover waiting for its query's vector then failed (a 500).
describe("a model lost after it had loaded", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers the discover it was embedding lexically, and is loaded again, hybrid once back", async () => {
    vi.useFakeTimers();
    const { embedder, semantic, index, heard } = await readyIndex();
    embedder.hang = true;
    const waiting = index.search("forecast for Paris", { owner: "alice" });
    await vi.advanceTimersByTimeAsync(0);
    embedder.kill();
    const answered = await waiting;
    expect(answered.ranking).toEqual({ mode: "lexical", semantic: "loading" });
    expect(answered.hits[0]?.skill_id).toBe("weather");
    expect(heard).toEqual([{ message: "embedding thread exited (code 1)", reloading: true }]);
    // A skill added meanwhile is embedded once the model is back.
    index.add(recordToDocument({ id: "news", name: "News", description: "Headlines of the day." }));
    expect(semantic.state).toBe("loading");
    await vi.advanceTimersByTimeAsync(1_000);
    await semantic.idle();
    expect(embedder.loads).toBe(2);
    expect(semantic.state).toBe("ready");
    expect(semantic.vectors.vectorOf("news")).toBeDefined();
    expect((await index.search("forecast for Paris", { owner: "alice" })).ranking).toEqual({
      mode: "hybrid",
      semantic: "ready",
    });
  });

  it("is not loaded again past three losses within an hour: failed, and said so", async () => {
    vi.useFakeTimers();
    const { embedder, semantic, heard } = await readyIndex();
    for (let loss = 1; loss <= 3; loss += 1) {
      embedder.kill();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(semantic.state).toBe("ready");
    }
    embedder.kill();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(semantic.state).toBe("failed");
    expect(embedder.loads).toBe(4);
    expect(heard.at(-1)).toEqual({
      message: "the model stopped 4 times within an hour: not loaded again",
      reloading: false,
    });
  });

  it("is loaded again after a fourth loss when the first three are over an hour old", async () => {
    vi.useFakeTimers();
    const { embedder, semantic } = await readyIndex();
    for (let loss = 1; loss <= 3; loss += 1) {
      embedder.kill();
      await vi.advanceTimersByTimeAsync(1_000);
    }
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    embedder.kill();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(semantic.state).toBe("ready");
  });
});

describe("a query the model fails to embed while it runs", () => {
  it("is answered lexically, saying the model failed it, and the next one hybrid", async () => {
    const { embedder, index } = await readyIndex();
    const embed = embedder.embed.bind(embedder);
    embedder.embed = () => Promise.reject(new Error("embedding failed: out of memory"));
    const failed = await index.search("forecast for Paris", { owner: "alice" });
    expect(failed.ranking).toEqual({ mode: "lexical", semantic: "failed" });
    expect(failed.hits[0]?.skill_id).toBe("weather");
    embedder.embed = embed;
    expect((await index.search("forecast for Rome", { owner: "alice" })).ranking.mode).toBe("hybrid");
  });
});
