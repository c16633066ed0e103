import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createDiscoveryIndex } from "../../src/core/discovery/discovery.js";
import type { DescriptionRecord } from "../../src/core/discovery/document.js";
import { evaluateRanking, type LabelledQuery } from "../../src/core/discovery/evaluate.js";

// Outside data, read in place and never copied (../shared/data/README.md).
const directory = fileURLToPath(new URL("../../../shared/data/discovery/metatool-dev/", import.meta.url));
const present = existsSync(`${directory}tools.jsonl`) && existsSync(`${directory}queries.jsonl`);
if (!present) console.warn(`metatool-dev evaluation skipped: ${directory} is absent`);

function readJsonLines(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as unknown);
}

interface MetaToolTool {
  id: string;
  name: string;
  description: string;
  description_for_model: string | null;
}

describe.skipIf(!present)("discovery quality on MetaTool (dev half)", () => {
  it("reaches nDCG@10 ≥ 0.57 and recall@5 ≥ 0.64 (plain BM25 on name + description: ≈ 0.40)", () => {
    const tools = readJsonLines(`${directory}tools.jsonl`) as MetaToolTool[];
    const queries = readJsonLines(`${directory}queries.jsonl`) as LabelledQuery[];
    const records: DescriptionRecord[] = tools.map((tool) => ({
      id: tool.id,
      name: tool.name,
      description: tool.description,
      extra: tool.description_for_model,
    }));
    const index = createDiscoveryIndex(records);
    const metrics = evaluateRanking(queries, (query) =>
      index.search(query, { limit: 10 }).map((hit) => hit.skill_id),
    );
    console.info(
      `metatool-dev: ${metrics.queries} queries, nDCG@10 ${(metrics.ndcgAt10 * 100).toFixed(1)}, ` +
        `recall@5 ${(metrics.recallAt5 * 100).toFixed(1)}, MRR@10 ${(metrics.mrrAt10 * 100).toFixed(1)}`,
    );
    expect(metrics.queries).toBeGreaterThan(10_000);
    expect(metrics.ndcgAt10).toBeGreaterThanOrEqual(0.57);
    expect(metrics.recallAt5).toBeGreaterThanOrEqual(0.64);
  });
});
