import { createDiscoveryIndex, type RankingInfo } from "../core/discovery/discovery.js";
import type { DescriptionRecord } from "../core/discovery/document.js";
import type { TextEmbedder } from "../core/discovery/embedder.js";
import { type LabelledQuery, MetricsAccumulator, type RetrievalMetrics } from "../core/discovery/evaluate.js";
import { SemanticIndex } from "../core/discovery/semantic-index.js";
import type { EmbeddingStore } from "../core/ports.js";
import { type LatencySummary, summariseLatency } from "./latency.js";

export interface EvaluationOptions {
  /** Hybrid ranking with this model; lexical without. */
  embedder?: TextEmbedder;
  /** Where skill embeddings are cached between runs. */
  embeddingCache?: EmbeddingStore;
}

export interface EvaluationReport {
  mode: RankingInfo["mode"];
  tools: number;
  metrics: RetrievalMetrics;
  latency: LatencySummary;
  /** Lexical index build. */
  buildMs: number;
  /** Loading the model and embedding every tool not found in the cache (hybrid only). */
  embeddingMs: number;
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
export async function runEvaluation(
  tools: readonly DescriptionRecord[],
  queries: readonly LabelledQuery[],
  options: EvaluationOptions = {},
): Promise<EvaluationReport> {
  const semantic = options.embedder && new SemanticIndex(options.embedder, options.embeddingCache);
  const heapBefore = heapUsed();
  let started = performance.now();
  const index = createDiscoveryIndex(tools, { semantic });
  const buildMs = performance.now() - started;
  const indexHeapMiB = (heapUsed() - heapBefore) / MIB;
  started = performance.now();
  if (semantic) {
    await semantic.start();
    await semantic.idle();
  }
  const embeddingMs = performance.now() - started;
  const rssMiB = process.memoryUsage().rss / MIB;

  const accumulator = new MetricsAccumulator();
  const timesMs: number[] = [];
  for (const { query, relevant } of queries) {
    const before = performance.now();
    const { hits } = await index.search(query, { limit: 10 });
    timesMs.push(performance.now() - before);
    accumulator.add(
      hits.map((hit) => hit.skill_id),
      relevant,
    );
  }
  return {
    mode: index.ranking().mode,
    tools: index.size,
    metrics: accumulator.metrics(),
    latency: summariseLatency(timesMs),
    buildMs,
    embeddingMs,
    rssMiB,
    indexHeapMiB,
  };
}
