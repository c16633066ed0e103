import { describe, expect, it } from "vitest";
import { lazy } from "../../skills/lib/lazy.js";

describe("lazy", () => {
  it("loads once on first use and says whether the value has loaded, without loading it", async () => {
    let loads = 0;
    const value = lazy(async () => ++loads);
    expect(value.loaded()).toBeUndefined();
    expect(loads).toBe(0);
    const first = value();
    expect(value.loaded()).toBeUndefined(); // still loading
    expect(await first).toBe(1);
    expect(await value()).toBe(1);
    expect(value.loaded()).toBe(1);
    expect(loads).toBe(1);
  });

  it("tries again after a failed load", async () => {
    let attempts = 0;
    const value = lazy(async () => {
      if (++attempts === 1) throw new Error("first load fails");
      return "ok";
    });
    await expect(value()).rejects.toThrow("first load fails");
    expect(value.loaded()).toBeUndefined();
    expect(await value()).toBe("ok");
    expect(value.loaded()).toBe("ok");
  });
});
