import { describe, expect, it } from "vitest";
import { fusedDisplayScore, fuseOnScale, fuseScores, fusionScale } from "../../src/core/discovery/fusion.js";
import { VectorIndex } from "../../src/core/discovery/vector-index.js";

describe("score fusion", () => {
  it("z-normalises each signal so that neither scale dominates", () => {
    // Lexical shares spread over 0..0.9, cosines over 0.10..0.13: raw sums would follow
    // lexical alone; after z-normalisation the semantic leader wins at weight 0.7.
    const fused = fuseScores(
      [
        { id: "lexical-best", lexical: 0.9, semantic: 0.1 },
        { id: "semantic-best", lexical: 0.3, semantic: 0.13 },
        { id: "neither", lexical: 0, semantic: 0.11 },
      ],
      { lexical: 0.3, semantic: 0.7 },
    );
    expect(fused.map((candidate) => candidate.id)).toEqual(["semantic-best", "lexical-best", "neither"]);
  });

  it("follows lexical alone at weights 1/0, and ignores a signal that is the same for all", () => {
    const candidates = [
      { id: "a", lexical: 0.2, semantic: 0.9 },
      { id: "b", lexical: 0.5, semantic: 0.1 },
    ];
    expect(fuseScores(candidates, { lexical: 1, semantic: 0 }).map((c) => c.id)).toEqual(["b", "a"]);
    const flat = fuseScores([
      { id: "b", lexical: 0.4, semantic: 0.5 },
      { id: "a", lexical: 0.4, semantic: 0.5 },
    ]);
    expect(flat.map((c) => [c.id, c.fused])).toEqual([
      ["a", 0],
      ["b", 0],
    ]);
  });

  it("counts how much of the query the only lexical match covers, which its z-score cannot tell", () => {
    const onlyMatch = (share: number, weights?: { lexical: number; semantic: number }) =>
      fuseScores(
        [
          { id: "match", lexical: share, semantic: 0.5 },
          { id: "other", lexical: 0, semantic: 0.6 },
          { id: "third", lexical: 0, semantic: 0.4 },
        ],
        weights,
      ).find((candidate) => candidate.id === "match")?.fused ?? Number.NaN;
    // z-scores alone: one word of ten and every word of the query fuse the same.
    expect(onlyMatch(0.1, { lexical: 0.3, semantic: 0.7 })).toBeCloseTo(
      onlyMatch(0.9, { lexical: 0.3, semantic: 0.7 }),
      12,
    );
    // With the default coverage (1), the share above the mean (share − share/3) counts as it is.
    expect(onlyMatch(0.9) - onlyMatch(0.1)).toBeCloseTo((0.9 - 0.1) * (2 / 3), 12);
    // An average candidate still fuses to 0 (display score 0.5).
    expect(fuseScores([{ id: "a", lexical: 0.4, semantic: 0.5 }])[0]?.fused).toBe(0);
  });

  it("scores a subset on the whole set's scale exactly as the whole set scores it", () => {
    const whole = [
      { id: "a", lexical: 0.9, semantic: 0.2 },
      { id: "b", lexical: 0.1, semantic: 0.6 },
      { id: "c", lexical: 0.4, semantic: 0.5 },
      { id: "d", lexical: 0, semantic: 0.1 },
    ];
    const subset = whole.filter((candidate) => candidate.id !== "a");
    const onWholeScale = fuseOnScale(subset, fusionScale(whole));
    expect(onWholeScale).toEqual(fuseScores(whole).filter((candidate) => candidate.id !== "a"));
    // On its own scale the subset is rescored: the reason a filter must not set the scale.
    expect(fuseScores(subset).map((candidate) => candidate.fused)).not.toEqual(
      onWholeScale.map((candidate) => candidate.fused),
    );
  });

  it("maps fused scores to (0, 1) keeping their order, 0.5 for an average candidate", () => {
    expect(fusedDisplayScore(0)).toBe(0.5);
    expect(fusedDisplayScore(2)).toBeGreaterThan(fusedDisplayScore(1));
    expect(fusedDisplayScore(-5)).toBeGreaterThan(0);
    expect(fusedDisplayScore(5)).toBeLessThan(1);
  });
});

describe("VectorIndex", () => {
  const unit = (...values: number[]) => {
    const norm = Math.hypot(...values);
    return Float32Array.from(values.map((value) => value / norm));
  };

  it("ranks by cosine, filters, and reflects replacement and removal at once", () => {
    const index = new VectorIndex(2);
    index.set("east", unit(1, 0));
    index.set("north", unit(0, 1));
    index.set("north-east", unit(1, 1));
    const query = unit(1, 0.2);
    expect(index.search(query, 3).map((hit) => hit.id)).toEqual(["east", "north-east", "north"]);
    expect(index.search(query, 1, (id) => id.startsWith("north"))[0]?.id).toBe("north-east");
    expect(index.searchWithin(query, 2, (id) => id.startsWith("north"))).toEqual({
      all: index.search(query, 2),
      within: index.search(query, 2, (id) => id.startsWith("north")),
    });
    index.set("north", unit(1, 0.1));
    expect(index.search(query, 1)[0]?.id).toBe("north");
    expect(index.remove("north")).toBe(true);
    expect(index.remove("north")).toBe(false);
    index.set("west", unit(-1, 0));
    expect(index.size).toBe(3);
    expect(index.search(query, 3).map((hit) => hit.id)).toEqual(["east", "north-east", "west"]);
    expect(index.similarity(query, "west")).toBeCloseTo(-1 / Math.hypot(1, 0.2), 6);
    expect(index.similarity(query, "north")).toBeUndefined();
  });

  it("refuses a vector of the wrong size", () => {
    expect(() => new VectorIndex(3).set("a", unit(1, 0))).toThrow(RangeError);
  });
});
