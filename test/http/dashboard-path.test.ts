import { describe, expect, it } from "vitest";
import { dashboardPath } from "../../src/http/dashboard/sign-in-pages.js";

// Where a sign-in may return to: its Location header must be one a response can carry.
describe("dashboardPath", () => {
  it("percent-encodes characters a header cannot carry, and leaves encoded ones alone", () => {
    expect(dashboardPath("/dashboard/skills/✓?q=a%20b")).toBe("/dashboard/skills/%E2%9C%93?q=a%20b");
  });

  it("refuses half a UTF-16 pair, which no encoding can carry", () => {
    expect(dashboardPath("/dashboard/skills/\ud800")).toBeUndefined();
    expect(dashboardPath("/dashboard/skills/😀")).toBe("/dashboard/skills/%F0%9F%98%80");
  });
});
