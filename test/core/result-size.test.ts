import { describe, expect, it } from "vitest";
import { exceedsJsonSize } from "../../src/core/execution/result-size.js";

describe("exceedsJsonSize", () => {
  it("counts a value's JSON about as JSON.stringify would", () => {
    const value = { text: "a".repeat(1000), list: [1, 2, 3], nested: { ok: true, none: null } };
    const bytes = JSON.stringify(value).length;
    expect(exceedsJsonSize(value, bytes * 2)).toBe(false);
    expect(exceedsJsonSize(value, bytes / 2)).toBe(true);
    expect(exceedsJsonSize("x".repeat(100), 50)).toBe(true);
    expect(exceedsJsonSize(42, 50)).toBe(false);
  });

  it("stops at the limit: a value sharing its parts 2^60 times is judged at once", () => {
    let value: unknown = "shared";
    for (let i = 0; i < 60; i++) value = { left: value, right: [value] };
    expect(exceedsJsonSize(value, 1024 * 1024)).toBe(true);
  });

  it("counts only a value's own properties", () => {
    const inherited = Object.create({ big: "x".repeat(10_000) }) as object;
    expect(exceedsJsonSize(inherited, 100)).toBe(false);
  });
});
