import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { Bm25fRetriever } from "../../src/core/discovery/bm25f.js";
import type { TextEmbedder } from "../../src/core/discovery/embedder.js";
import { SemanticIndex } from "../../src/core/discovery/semantic-index.js";
import { DEFAULT_LEARNED_QUERY_CAPS, UsageLearning } from "../../src/core/discovery/usage-learning.js";
import { silentLogger } from "../../src/core/logger.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { hashVector } from "./hash-vector.js";

/** A stand-in model counting the texts it embeds, which answers only while its gate is open. */
class CountingEmbedder implements TextEmbedder {
  readonly modelId = "counting-test-1";
  readonly dimensions = 8;
  loaded = false;
  embedded = 0;
  gate: Promise<void> = Promise.resolve();
  async load(): Promise<void> {
    this.loaded = true;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    await this.gate;
    this.embedded += texts.length;
    return texts.map((text) => hashVector(text, this.dimensions));
  }
  async close(): Promise<void> {}
}

const OWNER = "acme";
const REFRESH_MS = 60_000;

// The refresh every 30 s re-read every learned query's vector from the embedding cache, on
// the event loop (~0.15 s at 4,400), although the evidence in memory held them all.
describe("re-reading an owner's learned queries", () => {
  let dir: string;
  let store: SqliteStore;
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function learning({ recentQueries = 0 } = {}) {
    dir = await mkdtemp(join(tmpdir(), "skillport-learned-refresh-"));
    store = openSqliteStore({ dataDir: dir });
    const clock = new ManualClock(Date.UTC(2026, 10, 29, 12));
    const embedder = new CountingEmbedder();
    const semantic = new SemanticIndex(embedder, store.embeddings, undefined, { recentQueries });
    await semantic.start();
    const learner = new UsageLearning(store.learnedQueries, semantic, clock, silentLogger, {
      windowMs: 300_000,
      refreshMs: REFRESH_MS,
    });
    const learn = (query: string, skillId: string) =>
      store.learnedQueries.record(
        { owner: OWNER, query, skillId, discoveredAt: clock.now() - 10, at: clock.now() },
        DEFAULT_LEARNED_QUERY_CAPS,
      );
    return { clock, embedder, semantic, learner, learn };
  }

  it("takes the vectors it holds from memory, reads or embeds only the queries new since, and re-indexes only their skills", async () => {
    const { clock, embedder, learner, learn } = await learning();
    for (let i = 0; i < 40; i += 1)
      await learn(`learned query number ${i}`, i % 2 ? "notes.keep" : "files.write");
    const first = await learner.evidenceFor(OWNER);
    expect(first?.size).toBe(40);
    expect(first?.complete).toBe(true);
    expect(embedder.embedded).toBe(40);

    await learn("a query learned since", "notes.keep");
    const cacheReads = vi.spyOn(store.embeddings, "getMany");
    const indexed = vi.spyOn(Bm25fRetriever.prototype, "add");
    clock.advance(REFRESH_MS / 2);
    await learner.evidenceFor(OWNER); // stale: re-read in the background
    await learner.idle();
    // Only the skill with a new query was indexed again (the refresh rebuilt every skill).
    expect(indexed.mock.calls.map(([document]) => document.id)).toEqual(["notes.keep"]);
    indexed.mockRestore();
    const refreshed = await learner.evidenceFor(OWNER);
    expect(refreshed?.size).toBe(41);
    expect(refreshed?.complete).toBe(true);
    // Only the new query was looked for in the cache, then embedded.
    expect(cacheReads.mock.calls.map(([, hashes]) => hashes.length)).toEqual([1]);
    expect(embedder.embedded).toBe(41);
    // The vectors taken from memory are the ones the queries had.
    const signals = refreshed?.signals("unrelated words", hashVector("learned query number 7", 8));
    expect(signals?.get("notes.keep")?.nearest?.query).toBe("learned query number 7");
    expect(signals?.get("notes.keep")?.semantic).toBeCloseTo(1, 5);
  });

  // A sync execution waits for its learning, which waited for the model to embed the query
  // when the discover had been answered without it: a second and more while the model was
  // busy (8 fuzz clients: a discover and an execute ~1 s at the same moment).
  it("learns from an execution without waiting for the model; the vector comes with the owner's next search", async () => {
    const { embedder, learner } = await learning();
    const caller = { id: "key_1", owner: OWNER };
    expect(await learner.evidenceFor(OWNER)).toBeUndefined(); // the owner's (empty) evidence is held
    // Answered lexically (the model was busy): the query's vector is not at hand.
    await learner.noteDiscover(caller, "forecast for paris", ["weather.now"]);
    let open = () => {};
    embedder.gate = new Promise((resolve) => {
      open = resolve;
    });
    await learner.noteExecution(caller, "weather.now"); // waited for the gate before
    const learned = await learner.evidenceFor(OWNER); // incomplete: re-read in the background
    expect(learned?.size).toBe(1);
    expect(learned?.complete).toBe(false);
    expect(learned?.signals("forecast for paris").get("weather.now")?.lexical).toBeGreaterThan(0);
    open();
    await learner.idle();
    const refreshed = await learner.evidenceFor(OWNER);
    expect(refreshed?.complete).toBe(true);
    const signal = refreshed?.signals("forecast", hashVector("forecast for paris", 8)).get("weather.now");
    expect(signal?.semantic).toBeCloseTo(1, 5);
  });

  // The note keeps the query's words single-spaced; the discover's vector was kept under its
  // text as sent, so learning from a spaced-out query waited for a background re-read.
  it("takes the discover's vector of a query spaced out, as the same words single-spaced", async () => {
    const { embedder, semantic, learner } = await learning({ recentQueries: 10 });
    const caller = { id: "key_1", owner: OWNER };
    expect(await learner.evidenceFor(OWNER)).toBeUndefined();
    const query = "  forecast  for\n paris ";
    await semantic.embedQuery(query, OWNER); // as the discover ranking it did
    await learner.noteDiscover(caller, query, ["weather.now"]);
    embedder.gate = new Promise(() => {}); // the model answers nothing more
    await learner.noteExecution(caller, "weather.now");
    const learned = await learner.evidenceFor(OWNER);
    expect(learned?.complete).toBe(true);
    // The model read the words single-spaced, as the evidence holds them.
    const signal = learned?.signals("forecast", hashVector("forecast for paris", 8)).get("weather.now");
    expect(signal?.semantic).toBeCloseTo(1, 5);
    expect(semantic.recentVector("forecast for paris", OWNER)).toBeDefined();
  });
});
