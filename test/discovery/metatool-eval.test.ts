import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readAllJsonLines } from "../../src/discovery-eval/read-json-lines.js";
import { runEvaluation } from "../../src/discovery-eval/run-evaluation.js";
import { labelledQuery, toolRecord } from "../../src/discovery-eval/tool-records.js";

// Outside data, read in place and never copied (../shared/data/README.md).
const directory = fileURLToPath(new URL("../../../shared/data/discovery/metatool-dev/", import.meta.url));
const present = existsSync(`${directory}tools.jsonl`) && existsSync(`${directory}queries.jsonl`);
if (!present) console.warn(`metatool-dev evaluation skipped: ${directory} is absent`);

describe.skipIf(!present)("discovery quality on MetaTool (dev half)", () => {
  it("keeps lexical nDCG@10 ≥ 0.57 and recall@5 ≥ 0.64 (plain BM25 on name + description: ≈ 0.40)", async () => {
    const tools = (await readAllJsonLines(`${directory}tools.jsonl`)).map(toolRecord);
    const queries = (await readAllJsonLines(`${directory}queries.jsonl`)).map(labelledQuery);
    const { metrics } = await runEvaluation(tools, queries);
    console.info(
      `metatool-dev: ${metrics.queries} queries, nDCG@10 ${(metrics.ndcgAt10 * 100).toFixed(1)}, ` +
        `recall@5 ${(metrics.recallAt5 * 100).toFixed(1)}, MRR@10 ${(metrics.mrrAt10 * 100).toFixed(1)}`,
    );
    expect(metrics.queries).toBeGreaterThan(10_000);
    expect(metrics.ndcgAt10).toBeGreaterThanOrEqual(0.57);
    expect(metrics.recallAt5).toBeGreaterThanOrEqual(0.64);
  });
});
