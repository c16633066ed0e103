import { describe, expect, it } from "vitest";
import { MetricsAccumulator, ndcgAt, recallAt, reciprocalRankAt } from "../../src/core/discovery/evaluate.js";

const relevant = (...ids: string[]): ReadonlySet<string> => new Set(ids);

describe("retrieval metrics", () => {
  it("recall@k counts relevant ids within the top k over all relevant ids", () => {
    expect(recallAt(["a", "b", "c"], relevant("b", "z"), 5)).toBe(0.5);
    expect(recallAt(["a", "b", "c"], relevant("c"), 2)).toBe(0);
    expect(recallAt(["a"], relevant(), 5)).toBe(0);
  });

  it("MRR@k is 1 / rank of the first relevant id within k", () => {
    expect(reciprocalRankAt(["a", "b", "c"], relevant("b", "c"), 10)).toBe(0.5);
    expect(reciprocalRankAt(["a", "b", "c"], relevant("c"), 2)).toBe(0);
  });

  it("nDCG@k uses binary gains and an ideal over min(|relevant|, k)", () => {
    expect(ndcgAt(["a", "b"], relevant("a"), 10)).toBe(1);
    expect(ndcgAt(["x", "a"], relevant("a"), 10)).toBeCloseTo(1 / Math.log2(3), 12);
    // Two relevant, one found at rank 1: DCG 1, ideal 1 + 1/log2(3).
    expect(ndcgAt(["a", "x"], relevant("a", "b"), 10)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 12);
    expect(ndcgAt([], relevant("a"), 10)).toBe(0);
  });

  it("averages every metric over the queries added", () => {
    const accumulator = new MetricsAccumulator();
    accumulator.add(["a"], ["a"]);
    accumulator.add(["x", "y", "z", "w", "v", "b"], ["b"]);
    const metrics = accumulator.metrics();
    expect(metrics.queries).toBe(2);
    expect(metrics.recallAt1).toBe(0.5);
    expect(metrics.recallAt5).toBe(0.5);
    expect(metrics.recallAt10).toBe(1);
    expect(metrics.mrrAt10).toBeCloseTo((1 + 1 / 6) / 2, 12);
    expect(metrics.ndcgAt10).toBeCloseTo((1 + 1 / Math.log2(7)) / 2, 12);
  });

  it("reports all zeros before any query", () => {
    expect(new MetricsAccumulator().metrics()).toEqual({
      queries: 0,
      recallAt1: 0,
      recallAt5: 0,
      recallAt10: 0,
      ndcgAt10: 0,
      mrrAt10: 0,
    });
  });
});
