import { createDiscoveryIndex, type DiscoveryIndex } from "../core/discovery/discovery-index.js";
import type { DescriptionRecord } from "../core/discovery/document.js";
import type { TextEmbedder } from "../core/discovery/embedder.js";
import { type LabelledQuery, MetricsAccumulator, type RetrievalMetrics } from "../core/discovery/evaluate.js";
import type { RankingInfo } from "../core/discovery/match-evidence.js";
import { SemanticIndex } from "../core/discovery/semantic-index.js";
import type { UsageEvidence } from "../core/discovery/usage-evidence.js";
import type { EmbeddingStore, LearnedQueryStore } from "../core/ports.js";
import { type LatencySummary, summariseLatency } from "./latency.js";
import {
  EVALUATION_CALLER,
  type FeedSummary,
  feedUsage,
  splitQueries,
  type UsageSplit,
} from "./usage-feed.js";

export interface EvaluationOptions {
  /** Hybrid ranking with this model; lexical without. */
  embedder?: TextEmbedder;
  /** Where skill embeddings are cached between runs. */
  embeddingCache?: EmbeddingStore;
  /**
   * Learning from use: one part of the queries is fed as usage (through the service's
   * learning code, into this store, which must be empty) and the rest evaluated twice,
   * without and then with what was learned.
   */
  usage?: { split: UsageSplit; store: LearnedQueryStore; discoverLimit: number };
}

/** Learning from use: the held-out queries ranked without usage, then with it. */
export interface UsageReport {
  split: UsageSplit;
  feed: FeedSummary;
  /** The held-out queries with the learned evidence (`EvaluationReport.metrics` is without). */
  metrics: RetrievalMetrics;
  latency: LatencySummary;
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
  /** Present with `EvaluationOptions.usage`: then `metrics` and `latency` are of the held-out queries without usage. */
  usage?: UsageReport;
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

  const { fed, evaluated } = options.usage
    ? splitQueries(queries, options.usage.split)
    : { fed: [], evaluated: queries };
  const before = await rankAll(index, evaluated);
  let usage: UsageReport | undefined;
  if (options.usage) {
    const { learning, summary } = await feedUsage(
      index,
      options.usage.store,
      fed,
      options.usage.discoverLimit,
    );
    const evidence = await learning.evidenceFor(EVALUATION_CALLER.owner);
    const after = await rankAll(index, evaluated, evidence);
    usage = { split: options.usage.split, feed: summary, ...after };
  }
  return {
    mode: index.ranking().mode,
    tools: index.size,
    metrics: before.metrics,
    latency: before.latency,
    buildMs,
    embeddingMs,
    rssMiB,
    indexHeapMiB,
    ...(usage && { usage }),
  };
}

/** Ranks every query (top 10) through `DiscoveryIndex.search`, timing each call on its own. */
async function rankAll(
  index: DiscoveryIndex,
  queries: readonly LabelledQuery[],
  usage?: UsageEvidence,
): Promise<{ metrics: RetrievalMetrics; latency: LatencySummary }> {
  const accumulator = new MetricsAccumulator();
  const timesMs: number[] = [];
  for (const { query, relevant } of queries) {
    const before = performance.now();
    const { hits } = await index.search(query, { limit: 10, usage });
    timesMs.push(performance.now() - before);
    accumulator.add(
      hits.map((hit) => hit.skill_id),
      relevant,
    );
  }
  return { metrics: accumulator.metrics(), latency: summariseLatency(timesMs) };
}
