import { OFFERED_RANKS } from "../core/discovery/usage-learning.js";
import type { EvaluationReport } from "./run-evaluation.js";

const percent = (value: number): string => (value * 100).toFixed(1);
const ms = (value: number): string => (value < 1 ? value.toFixed(3) : value.toFixed(1));

/** The evaluation as a Markdown table: relevance in percent, then speed and memory. */
export function reportTable(report: EvaluationReport): string {
  const { metrics, latency } = report;
  const rows: [string, string][] = [
    ["ranking", report.mode],
    ["tools", String(report.tools)],
    [report.usage ? "queries (held out, no usage)" : "queries", String(metrics.queries)],
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
  return markdownTable(["metric", "value"], rows);
}

/** Learning from use: the held-out queries without and with the usage fed. */
export function usageTable(report: EvaluationReport): string {
  const { usage } = report;
  if (!usage) return "";
  const before = report.metrics;
  const after = usage.metrics;
  const row = (name: string, pick: (m: typeof before) => number): [string, string, string] => [
    name,
    percent(pick(before)),
    percent(pick(after)),
  ];
  return [
    `learning from use (split ${usage.split}): ${usage.feed.discovers} queries fed as usage, ${usage.feed.executions} executions, ${usage.feed.learned} learned from (${usage.feed.offered} of a skill the discover had offered in its top ${Math.min(OFFERED_RANKS, usage.feed.discoverLimit)}, the others each the first execution after its discover); ${after.queries} other queries evaluated`,
    "",
    markdownTable(
      ["metric", "before", "after"],
      [
        row("recall@1", (m) => m.recallAt1),
        row("recall@5", (m) => m.recallAt5),
        row("recall@10", (m) => m.recallAt10),
        row("nDCG@10", (m) => m.ndcgAt10),
        row("MRR@10", (m) => m.mrrAt10),
        ["query p50 (ms)", ms(report.latency.p50Ms), ms(usage.latency.p50Ms)],
        ["query p99 (ms)", ms(report.latency.p99Ms), ms(usage.latency.p99Ms)],
      ],
    ),
  ].join("\n");
}

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((name, column) =>
    Math.max(name.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}
