import { describe, expect, it } from "vitest";
import { TagIndex } from "../../src/core/discovery/tag-index.js";

describe("TagIndex", () => {
  it("accepts the skills having all the tags, and follows a skill's tags as they change", () => {
    const index = new TagIndex();
    index.set("a", ["time", "date"]);
    index.set("b", ["time"]);
    const accepted = (tags: string[]) => ["a", "b", "c"].filter((id) => index.filter(tags)?.(id) ?? true);
    expect(accepted(["TIME "])).toEqual(["a", "b"]);
    expect(accepted(["date", "time"])).toEqual(["a"]);
    expect(accepted(["nobody"])).toEqual([]);
    expect(index.filter([])).toBeUndefined();
    index.set("a", ["units"]);
    expect(accepted(["time"])).toEqual(["b"]);
    index.remove("b");
    expect(accepted(["time"])).toEqual([]);
    expect([index.size, index.has("a"), index.has("b")]).toEqual([1, true, false]);
  });
});
