import { createDiscoveryIndex, type DiscoveryIndex } from "../core/discovery/discovery.js";
import type { DescriptionRecord } from "../core/discovery/document.js";
import { type LabelledQuery, MetricsAccumulator, type RetrievalMetrics } from "../core/discovery/evaluate.js";
import { type LatencySummary, summariseLatency } from "./latency.js";

export interface EvaluationReport {
  tools: number;
  metrics: RetrievalMetrics;
  latency: LatencySummary;
  buildMs: number;
  /** Resident set size of the process once the index is built, in MiB. */
  rssMiB: number;
  /** Heap the index added, in MiB (after a collection, when `--expose-gc` allows it). */
  indexHeapMiB: number;
}

const MIB = 1024 * 1024;

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * Builds the index over `tools` and ranks every query through `DiscoveryIndex.search`,
 * the call `POST /v1/discover` makes, timing each call on its own.
 */
export function runEvaluation(
  tools: readonly DescriptionRecord[],
  queries: readonly LabelledQuery[],
): EvaluationReport {
  const heapBefore = heapUsed();
  const started = performance.now();
  const index: DiscoveryIndex = createDiscoveryIndex(tools);
  const buildMs = performance.now() - started;
  const indexHeapMiB = (heapUsed() - heapBefore) / MIB;
  const rssMiB = process.memoryUsage().rss / MIB;

  const accumulator = new MetricsAccumulator();
  const timesMs: number[] = [];
  for (const { query, relevant } of queries) {
    const before = performance.now();
    const hits = index.search(query, { limit: 10 });
    timesMs.push(performance.now() - before);
    accumulator.add(
      hits.map((hit) => hit.skill_id),
      relevant,
    );
  }
  return {
    tools: index.size,
    metrics: accumulator.metrics(),
    latency: summariseLatency(timesMs),
    buildMs,
    rssMiB,
    indexHeapMiB,
  };
}
