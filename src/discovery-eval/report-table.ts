import type { EvaluationReport } from "./run-evaluation.js";

const percent = (value: number): string => (value * 100).toFixed(1);
const ms = (value: number): string => (value < 1 ? value.toFixed(3) : value.toFixed(1));

/** The evaluation as a Markdown table: relevance in percent, then speed and memory. */
export function reportTable(report: EvaluationReport): string {
  const { metrics, latency } = report;
  const rows: [string, string][] = [
    ["ranking", report.mode],
    ["tools", String(report.tools)],
    ["queries", String(metrics.queries)],
    ["recall@1", percent(metrics.recallAt1)],
    ["recall@5", percent(metrics.recallAt5)],
    ["recall@10", percent(metrics.recallAt10)],
    ["nDCG@10", percent(metrics.ndcgAt10)],
    ["MRR@10", percent(metrics.mrrAt10)],
    ["query p50 (ms)", ms(latency.p50Ms)],
    ["query p99 (ms)", ms(latency.p99Ms)],
    ["index build (ms)", ms(report.buildMs)],
    ["model load + embedding (ms)", report.mode === "hybrid" ? ms(report.embeddingMs) : "-"],
    ["index heap (MiB)", report.indexHeapMiB.toFixed(1)],
    ["resident memory (MiB)", report.rssMiB.toFixed(0)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    `| ${"metric".padEnd(width)} | value |`,
    `|${"-".repeat(width + 2)}|-------|`,
    ...rows.map(([name, value]) => `| ${name.padEnd(width)} | ${value} |`),
  ].join("\n");
}
