import { describe, expect, it } from "vitest";
import { countersOf, windowStartSeconds, windowStates } from "../../src/core/limits/windows.js";

const MINUTE = 60;
const DAY = 86_400;
/** UTC midnight, in Unix seconds. */
const MIDNIGHT = Date.UTC(2026, 2, 15) / 1000;

describe("limit windows (the arithmetic every limiter shares)", () => {
  it("starts a window on its own first millisecond and keeps the one before in the window before", () => {
    expect(windowStartSeconds(MIDNIGHT * 1000, MINUTE)).toBe(MIDNIGHT);
    expect(windowStartSeconds(MIDNIGHT * 1000 + 59_999, MINUTE)).toBe(MIDNIGHT);
    expect(windowStartSeconds(MIDNIGHT * 1000 + 60_000, MINUTE)).toBe(MIDNIGHT + MINUTE);
    expect(windowStartSeconds(MIDNIGHT * 1000 - 1, MINUTE)).toBe(MIDNIGHT - MINUTE);
  });

  it("starts the day at UTC midnight, whatever the time of day", () => {
    expect(windowStartSeconds(MIDNIGHT * 1000 + 23 * 3_600_000 + 59_999, DAY)).toBe(MIDNIGHT);
    expect(windowStartSeconds(MIDNIGHT * 1000 - 1, DAY)).toBe(MIDNIGHT - DAY);
  });

  it("gives windows of one length one counter, held to the smaller limit, in the order of the windows", () => {
    const nowMs = MIDNIGHT * 1000 + 90_500;
    const windows = [
      { limit: 100, windowSeconds: DAY },
      { limit: 10, windowSeconds: MINUTE },
      { limit: 4, windowSeconds: MINUTE },
    ];
    expect(countersOf(windows, nowMs)).toEqual([
      { windowSeconds: DAY, windowStart: MIDNIGHT, limit: 100 },
      { windowSeconds: MINUTE, windowStart: MIDNIGHT + MINUTE, limit: 4 },
    ]);
    expect(countersOf([], nowMs)).toEqual([]);
  });

  it("states each window from its counter's count plus the grant: ends at start + length, remaining never below 0", () => {
    const windows = [
      { limit: 10, windowSeconds: MINUTE },
      { limit: 4, windowSeconds: MINUTE },
      { limit: 100, windowSeconds: DAY },
    ];
    const counters = countersOf(windows, MIDNIGHT * 1000 + 90_500);
    expect(windowStates(windows, counters, [3, 40], 2)).toEqual([
      { limit: 10, remaining: 5, resetAtSeconds: MIDNIGHT + 2 * MINUTE, windowSeconds: MINUTE },
      { limit: 4, remaining: 0, resetAtSeconds: MIDNIGHT + 2 * MINUTE, windowSeconds: MINUTE },
      { limit: 100, remaining: 58, resetAtSeconds: MIDNIGHT + DAY, windowSeconds: DAY },
    ]);
  });
});
