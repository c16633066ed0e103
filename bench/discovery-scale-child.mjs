// One size of the discovery-scale bench, in its own process so that its memory figures
// are its own: node --expose-gc discovery-scale-child.mjs SIZE → one JSON line on stdout.
import { DiscoveryIndex } from "../dist/src/core/discovery/discovery.js";
import { recordToDocument } from "../dist/src/core/discovery/document.js";
import { summariseLatency } from "../dist/src/discovery-eval/latency.js";
import { readAllJsonLines } from "../dist/src/discovery-eval/read-json-lines.js";
import { toolRecord } from "../dist/src/discovery-eval/tool-records.js";
import { CATALOG_FILES } from "./discovery-data.mjs";
import { DISCOVERY_QUERIES } from "./discovery-queries.mjs";

const ROUNDS = 20;
const size = Number(process.argv[2]);
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
const index = new DiscoveryIndex();
for (const document of documents) index.add(document);
const buildMs = performance.now() - started;
const indexHeapMiB = (heap() - heapBefore) / MIB;
const rssMiB = process.memoryUsage().rss / MIB;

// Warm-up lets the JIT compile the scoring loops; then every query is timed on its own.
for (const query of DISCOVERY_QUERIES) index.search(query, { limit: 10 });
const timesMs = [];
let empty = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  for (const query of DISCOVERY_QUERIES) {
    started = performance.now();
    const hits = index.search(query, { limit: 10 });
    timesMs.push(performance.now() - started);
    if (hits.length === 0) empty += 1;
  }
}

// Incremental upkeep: one skill added, changed and removed, each visible to the next search.
const fresh = toolRecord(
  { id: "bench/skill-under-test", name: "quasarTeleport", description: "Teleports a quasar" },
  0,
);
const timed = (action) => {
  const before = performance.now();
  action();
  return performance.now() - before;
};
const found = (query) => index.search(query, { limit: 1 })[0]?.skill_id === fresh.id;
const addMs = timed(() => index.add(recordToDocument(fresh)));
const addedFound = found("teleport a quasar");
const changed = { ...fresh, name: "pulsarBeam", description: "Beams a pulsar" };
const changeMs = timed(() => index.add(recordToDocument(changed)));
const changedFound = found("beam a pulsar") && !found("teleport a quasar");
const removeMs = timed(() => index.remove(fresh.id));
const removedGone = !found("beam a pulsar");

console.log(
  JSON.stringify({
    size: records.length,
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
