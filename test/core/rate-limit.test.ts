import { describe, expect, it } from "vitest";
import { describeDecision, keyWindows, statusAt } from "../../src/core/limits/rate-limit.js";

const minute = (remaining: number, resetAtSeconds = 1_800_000_060) => ({
  limit: 60,
  remaining,
  resetAtSeconds,
  windowSeconds: 60,
});
const day = (remaining: number, resetAtSeconds = 1_800_057_600) => ({
  limit: 1000,
  remaining,
  resetAtSeconds,
  windowSeconds: 86_400,
});

describe("rate limit status", () => {
  it("describes the window with the fewest requests remaining", () => {
    const status = describeDecision({ allowed: true, windows: [minute(50), day(5)] }, 1_800_000_010_000);
    expect(status.current.windowSeconds).toBe(86_400);
    expect(status.current.remaining).toBe(5);
  });

  it("prefers the shorter window on a tie", () => {
    const status = describeDecision({ allowed: true, windows: [day(7), minute(7)] }, 1_800_000_010_000);
    expect(status.current.windowSeconds).toBe(60);
    expect(status.windows.map((w) => w.windowSeconds)).toEqual([60, 86_400]);
  });

  it("asks a refused client to wait until the exhausted window ends, at least one second", () => {
    const now = 1_800_000_010_000; // 50 s before the minute window ends
    expect(describeDecision({ allowed: false, windows: [minute(0), day(900)] }, now).retryAfterSeconds).toBe(
      50,
    );
    const justBeforeReset = 1_800_000_059_900;
    expect(
      describeDecision({ allowed: false, windows: [minute(0), day(900)] }, justBeforeReset).retryAfterSeconds,
    ).toBe(1);
  });

  it("waits for the day window when the day is what is exhausted", () => {
    const now = 1_800_000_010_000;
    const status = describeDecision({ allowed: false, windows: [minute(40), day(0)] }, now);
    expect(status.retryAfterSeconds).toBe(1_800_057_600 - 1_800_000_010);
    expect(status.current.windowSeconds).toBe(86_400);
  });

  it("gives a key its plan's minute and day windows", () => {
    expect(keyWindows({ perMinute: 60, perDay: 1000 })).toEqual([
      { limit: 60, windowSeconds: 60 },
      { limit: 1000, windowSeconds: 86_400 },
    ]);
  });
});

// Audit 25 #2: a response sent after its window ended described that window.
describe("a limit status as it stands later (statusAt)", () => {
  const counted = describeDecision({ allowed: true, windows: [minute(0), day(40)] }, 1_800_000_050_000);

  it("is the same status while every window it describes goes on", () => {
    expect(statusAt(counted, 1_800_000_059_999)).toBe(counted);
  });

  it("describes a window that ended as the next one, with every request left", () => {
    const later = statusAt(counted, 1_800_000_065_000);
    expect(later.windows).toEqual([minute(60, 1_800_000_120), day(40)]);
    // The minute is no longer the window with the fewest left.
    expect(later.current).toEqual(day(40));
    // Windows are aligned to the epoch: one that ended long ago gives the one holding now.
    expect(statusAt(counted, 1_800_000_200_000).windows[0]).toEqual(minute(60, 1_800_000_240));
  });
});
