import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DISCOVERY_QUERIES } from "../../bench/discovery-queries.mjs";
import { DiscoveryIndex } from "../../src/core/discovery/discovery-index.js";
import { type DescriptionRecord, recordToDocument } from "../../src/core/discovery/document.js";
import { readAllJsonLines } from "../../src/discovery-eval/read-json-lines.js";
import { toolRecord } from "../../src/discovery-eval/tool-records.js";

const path = fileURLToPath(new URL("../../../shared/data/catalog/openapi-tools.jsonl.gz", import.meta.url));
const present = existsSync(path);
if (!present) console.warn(`catalog scale check skipped: ${path} is absent`);

const SKILL_COUNT = 10_000;

/** The first `count` lines only: the file holds 104k operations and the rest is not needed. */
async function readRecords(count: number): Promise<DescriptionRecord[]> {
  return (await readAllJsonLines(path, count)).map(toolRecord);
}

function percentile(sortedMs: number[], fraction: number): number {
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor(fraction * sortedMs.length))] ?? Number.NaN;
}

// Figures are logged, not asserted: timing assertions fail on a busy machine without
// saying anything about the code. What is asserted is that scale does not break results.
describe.skipIf(!present)("discovery over 10k OpenAPI operations", () => {
  it("builds, answers and updates incrementally at catalog scale", async () => {
    const records = await readRecords(SKILL_COUNT);
    const index = new DiscoveryIndex();
    let started = performance.now();
    for (const record of records) index.add(recordToDocument(record));
    const buildMs = performance.now() - started;
    expect(index.size).toBe(records.length);

    // The first ten of the benchmark's queries: short and long, rare and common terms.
    const queries = DISCOVERY_QUERIES.slice(0, 10);
    // Warm-up: let the JIT compile the scoring loops before timing them.
    for (let round = 0; round < 5; round += 1) for (const query of queries) index.searchLexical(query, 10);
    const timesMs: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      for (const query of queries) {
        started = performance.now();
        const hits = index.searchLexical(query, 10);
        timesMs.push(performance.now() - started);
        expect(hits.length).toBeGreaterThan(0);
      }
    }
    timesMs.sort((a, b) => a - b);
    console.info(
      `openapi ${records.length} skills: build ${buildMs.toFixed(0)} ms, query p50 ` +
        `${percentile(timesMs, 0.5).toFixed(2)} ms, p99 ${percentile(timesMs, 0.99).toFixed(2)} ms`,
    );

    const [top] = index.searchLexical("get the weather forecast for a city", 1);
    expect(top?.skill_id).toMatch(/weather/i);
    if (top) {
      index.remove(top.skill_id);
      expect(
        index.searchLexical("get the weather forecast for a city", 10).map((hit) => hit.skill_id),
      ).not.toContain(top.skill_id);
    }
  });
});
