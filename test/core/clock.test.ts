import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";

describe("isoTimestamp", () => {
  it("formats each instant, whichever came before it", () => {
    const a = Date.UTC(2026, 0, 1, 12, 30, 15, 7);
    const b = a + 1;
    for (const ms of [a, a, b, a, b, b, 0]) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    expect(isoTimestamp(a)).toBe("2026-01-01T12:30:15.007Z");
  });

  it("refuses an instant that is not a time, every time it is asked", () => {
    for (let i = 0; i < 2; i++) expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  });
});
