import { describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";

describe("skill warm-up", () => {
  it("lets every skill with heavy dependencies load them ahead of the first call", async () => {
    const warmable = builtinSkills.filter((skill) => skill.warm);
    expect(warmable.map((s) => s.id)).toEqual(
      expect.arrayContaining(["math.evaluate", "json.validate", "http.request"]),
    );
    await Promise.all(warmable.map((skill) => skill.warm?.()));
  });
});
