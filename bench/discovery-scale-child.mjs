// One size of the discovery-scale bench, in its own process so that its memory figures
// are its own: node --expose-gc discovery-scale-child.mjs SIZE [lexical|hybrid] → one JSON
// line on stdout. Hybrid caches skill embeddings in bench/results/embedding-cache (the
// SQLite store's EmbeddingStore), so only the first run pays for the model.
import { fileURLToPath } from "node:url";
import { DiscoveryIndex } from "../dist/src/core/discovery/discovery-index.js";
import { recordToDocument } from "../dist/src/core/discovery/document.js";
import { SemanticIndex } from "../dist/src/core/discovery/semantic-index.js";
import { summariseLatency } from "../dist/src/discovery-eval/latency.js";
import { readAllJsonLines } from "../dist/src/discovery-eval/read-json-lines.js";
import { toolRecord } from "../dist/src/discovery-eval/tool-records.js";
import { UseLiteEmbedder } from "../dist/src/embeddings/use-lite-embedder.js";
import { openSqliteStore } from "../dist/src/store/sqlite/index.js";
import { CATALOG_FILES } from "./discovery-data.mjs";
import { DISCOVERY_QUERIES } from "./discovery-queries.mjs";

// Hybrid rounds are fewer: each query runs the model (~15–25 ms), and 5 × 30 is enough for a p99.
const ROUNDS = process.argv[3] === "hybrid" ? 5 : 20;
const size = Number(process.argv[2]);
const mode = process.argv[3] ?? "lexical";
const MIB = 1024 * 1024;
const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};

const records = [
  ...(await readAllJsonLines(CATALOG_FILES.openapi, size)),
  ...(await readAllJsonLines(CATALOG_FILES.mcp)),
].map(toolRecord);
const documents = records.map(recordToDocument);
const rssBefore = process.memoryUsage().rss;
const heapBefore = heap();
let started = performance.now();
const embedder = mode === "hybrid" ? new UseLiteEmbedder() : undefined;
const cacheDir = fileURLToPath(new URL("./results/embedding-cache/", import.meta.url));
const cache = embedder && openSqliteStore({ dataDir: cacheDir });
// Every timed query runs the model: the service remembers recent query vectors, which
// would turn the 30 repeated queries into cache hits and hide the model's cost.
const semantic = embedder && new SemanticIndex(embedder, cache.embeddings, undefined, { recentQueries: 0 });
const index = new DiscoveryIndex({ semantic });
for (const document of documents) index.add(document);
const buildMs = performance.now() - started;
started = performance.now();
if (semantic) {
  await semantic.start();
  await semantic.idle();
}
const embeddingMs = performance.now() - started;
const indexHeapMiB = (heap() - heapBefore) / MIB;
const rssMiB = process.memoryUsage().rss / MIB;
const search = async (query, limit) => (await index.search(query, { limit })).hits;

// Warm-up lets the JIT compile the scoring loops; then every query is timed on its own.
for (const query of DISCOVERY_QUERIES) await search(query, 10);
const timesMs = [];
let empty = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  for (const query of DISCOVERY_QUERIES) {
    started = performance.now();
    const hits = await search(query, 10);
    timesMs.push(performance.now() - started);
    if (hits.length === 0) empty += 1;
  }
}

// Incremental upkeep: one skill added, changed and removed, each visible to the next search.
const fresh = toolRecord(
  { id: "bench/skill-under-test", name: "quasarTeleport", description: "Teleports a quasar" },
  0,
);
// In hybrid mode an update counts until the skill's embedding is in place too.
const timed = async (action) => {
  const before = performance.now();
  action();
  await semantic?.idle();
  return performance.now() - before;
};
const found = async (query) => (await search(query, 1))[0]?.skill_id === fresh.id;
const addMs = await timed(() => index.add(recordToDocument(fresh)));
const addedFound = await found("teleport a quasar");
const changed = { ...fresh, name: "pulsarBeam", description: "Beams a pulsar" };
const changeMs = await timed(() => index.add(recordToDocument(changed)));
// The old text must be gone from the index; in hybrid mode the changed skill may still
// rank first for the old query on meaning alone ("teleport a quasar" ~ "beam a pulsar").
const changedFound =
  (await found("beam a pulsar")) &&
  !index.searchLexical("teleport a quasar", 10).some((hit) => hit.skill_id === fresh.id);
const removeMs = await timed(() => index.remove(fresh.id));
const removedGone = !(await search("beam a pulsar", 10)).some((hit) => hit.skill_id === fresh.id);
const ranking = index.ranking().mode;
await embedder?.close();
await cache?.close();

console.log(
  JSON.stringify({
    size: records.length,
    mode: ranking,
    embedding_ms: embeddingMs,
    build_ms: buildMs,
    index_heap_mib: indexHeapMiB,
    rss_mib: rssMiB,
    rss_growth_mib: (process.memoryUsage().rss - rssBefore) / MIB,
    latency: summariseLatency(timesMs),
    empty_results: empty,
    update_ms: { add: addMs, change: changeMs, remove: removeMs },
    updates_visible: addedFound && changedFound && removedGone,
  }),
);
