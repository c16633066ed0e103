import { describe, expect, it } from "vitest";
import { retryAfterHeaderMs } from "../../src/client/retry.js";

const NOW = Date.UTC(2031, 4, 6, 7, 8, 9);

describe("Retry-After (RFC 9110 §10.2.3)", () => {
  it("reads delay-seconds and an HTTP-date", () => {
    expect(retryAfterHeaderMs("3", NOW)).toBe(3000);
    expect(retryAfterHeaderMs(" 0 ", NOW)).toBe(0);
    expect(retryAfterHeaderMs(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(retryAfterHeaderMs(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
  });

  it("finds no wait in a value that is neither, rather than reading it as a date long past", () => {
    for (const value of ["1.5", "7.", "-1", "", "soon"]) {
      expect(retryAfterHeaderMs(value, NOW), value).toBeUndefined();
    }
    expect(retryAfterHeaderMs(undefined, NOW)).toBeUndefined();
  });
});
