import { afterEach, describe, expect, it, vi } from "vitest";
import { createDiscoveryIndex } from "../../src/core/discovery/discovery-index.js";
import { recordToDocument } from "../../src/core/discovery/document.js";
import { type ModelProblem, SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { MortalEmbedder } from "./mortal-embedder.js";

const records = [
  { id: "weather", name: "WeatherNow", description: "Current conditions and forecasts for a city." },
  { id: "pizza", name: "PizzaOrder", description: "Order a pizza for delivery." },
];

async function readyIndex() {
  const embedder = new MortalEmbedder();
  const heard: { message: string; what: ModelProblem }[] = [];
  const semantic = new SemanticIndex(embedder, undefined, (err, what) =>
    heard.push({ message: (err as Error).message, what }),
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
    // Said once, as a loss: not also as a query the model failed.
    expect(heard).toEqual([{ message: "embedding thread exited (code 1)", what: "reloading" }]);
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
      what: "failed",
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
    const { embedder, index, heard } = await readyIndex();
    const embed = embedder.embed.bind(embedder);
    embedder.embed = () => Promise.reject(new Error("embedding failed: out of memory"));
    const failed = await index.search("forecast for Paris", { owner: "alice" });
    expect(failed.ranking).toEqual({ mode: "lexical", semantic: "failed" });
    expect(failed.hits[0]?.skill_id).toBe("weather");
    // For the log: an operator sees why answers say "failed".
    expect(heard).toEqual([{ message: "embedding failed: out of memory", what: "query" }]);
    embedder.embed = embed;
    expect((await index.search("forecast for Rome", { owner: "alice" })).ranking.mode).toBe("hybrid");
  });
});
