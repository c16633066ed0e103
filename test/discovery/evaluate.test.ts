import { describe, expect, it } from "vitest";
import { evaluateRanking, ndcgAt, recallAt, reciprocalRankAt } from "../../src/core/discovery/evaluate.js";

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

  it("evaluateRanking averages the three metrics over queries", () => {
    const metrics = evaluateRanking(
      [
        { query: "q1", relevant: ["a"] },
        { query: "q2", relevant: ["b"] },
      ],
      (query) => (query === "q1" ? ["a"] : ["x", "y", "z", "w", "v", "b"]),
    );
    expect(metrics.queries).toBe(2);
    expect(metrics.recallAt5).toBe(0.5);
    expect(metrics.mrrAt10).toBeCloseTo((1 + 1 / 6) / 2, 12);
    expect(metrics.ndcgAt10).toBeCloseTo((1 + 1 / Math.log2(7)) / 2, 12);
  });

  it("evaluateRanking of no queries is all zeros", () => {
    expect(evaluateRanking([], () => [])).toEqual({ queries: 0, ndcgAt10: 0, recallAt5: 0, mrrAt10: 0 });
  });
});
