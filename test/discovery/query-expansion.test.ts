import { describe, expect, it } from "vitest";
import { expandQuery } from "../../src/core/discovery/query-expansion.js";

const dot = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

describe("pseudo-relevance feedback on the query vector", () => {
  const query = Float32Array.from([1, 0, 0]);
  const near = Float32Array.from([0, 1, 0]);
  const other = Float32Array.from([0, 0, 1]);

  it("moves the query towards the mean of the feedback vectors and keeps it unit length", () => {
    const expanded = expandQuery(query, [near, other], 0.6);
    expect(Math.hypot(...expanded)).toBeCloseTo(1, 6);
    // 0.6·q + 0.2·near + 0.2·other, normalised.
    const norm = Math.hypot(0.6, 0.2, 0.2);
    expect([...expanded].map((value) => Number(value.toFixed(6)))).toEqual(
      [0.6 / norm, 0.2 / norm, 0.2 / norm].map((value) => Number(value.toFixed(6))),
    );
    expect(dot(expanded, near)).toBeGreaterThan(dot(query, near));
    expect(dot(expanded, query)).toBeLessThan(1);
  });

  it("leaves the query as it is without feedback or with all the weight on it", () => {
    expect(expandQuery(query, [], 0.6)).toBe(query);
    expect(expandQuery(query, [near], 1)).toBe(query);
  });
});
