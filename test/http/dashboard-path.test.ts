import { describe, expect, it } from "vitest";
import { formPageOf } from "../../src/http/dashboard/form-page.js";
import { dashboardPath } from "../../src/http/dashboard/sign-in-pages.js";

// Where a sign-in may return to: its Location header must be one a response can carry.
describe("dashboardPath", () => {
  it("percent-encodes characters a header cannot carry, and leaves encoded ones alone", () => {
    expect(dashboardPath("/dashboard/skills/✓?q=a%20b")).toBe("/dashboard/skills/%E2%9C%93?q=a%20b");
  });

  // Regression: `/dashboard/../v1/skills` passed as a dashboard page, and the browser,
  // resolving the dots, followed the sign-in out of the dashboard.
  it("refuses a path whose dot segments lead out of the dashboard", () => {
    for (const path of [
      "/dashboard/../v1/skills",
      "/dashboard/%2e%2e/v1/skills",
      "/dashboard/.%2E/mcp",
      "/dashboard/keys/../../v1/openapi.json",
      "/dashboard/..?q=1",
    ]) {
      expect(dashboardPath(path), path).toBeUndefined();
    }
    expect(dashboardPath("/dashboard/keys/../usage")).toBe("/dashboard/keys/../usage");
    expect(dashboardPath("/dashboard/keys?q=../x")).toBe("/dashboard/keys?q=../x");
  });

  it("refuses half a UTF-16 pair, which no encoding can carry", () => {
    expect(dashboardPath("/dashboard/skills/\ud800")).toBeUndefined();
    expect(dashboardPath("/dashboard/skills/😀")).toBe("/dashboard/skills/%F0%9F%98%80");
  });
});

// Left open in session 26: a form posted after the session ended leads back to its form.
describe("formPageOf", () => {
  it("names the page of each dashboard form from the path it posts to", () => {
    expect(formPageOf("/dashboard/keys")).toBe("/dashboard/keys/new");
    expect(formPageOf("/dashboard/keys/search")).toBe("/dashboard/keys");
    for (const action of ["edit", "roll", "revoke"]) {
      expect(formPageOf(`/dashboard/keys/key_abc/${action}`)).toBe(`/dashboard/keys/key_abc/${action}`);
    }
  });

  it("falls back to the overview for any other POST, and never leads outside the dashboard", () => {
    expect(formPageOf("/dashboard/sign-out")).toBe("/dashboard");
    expect(formPageOf("/dashboard/keys/a/b/edit")).toBe("/dashboard");
    expect(formPageOf("/dashboard/keys/sk_live_abc/edit")).toBe("/dashboard");
    expect(formPageOf("//evil.example/keys")).toBe("/dashboard");
  });
});
