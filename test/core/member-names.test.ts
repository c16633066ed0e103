import { describe, expect, it } from "vitest";
import { meantNames } from "../../src/core/member-names.js";

// The one rule behind "did you mean" for members, on every surface (audit 25, noted).
describe("meantNames", () => {
  const timeConvert = ["time", "from_timezone", "to_timezone", "format"];

  it("names a member that a name misspells, shortens, respells or holds as a part", () => {
    expect(meantNames("expresion", ["expression"])).toEqual(["expression"]);
    expect(meantNames("expr", ["expression"])).toEqual(["expression"]);
    expect(meantNames("to", timeConvert)).toEqual(["to_timezone"]);
    expect(meantNames("toTimezone", timeConvert)).toEqual(["to_timezone"]);
    expect(meantNames("timezone", timeConvert)).toEqual(["to_timezone", "from_timezone"]);
    expect(meantNames("execution_id", ["id", "wait_ms"])).toEqual(["id"]);
    expect(meantNames("waitMs", ["id", "wait_ms"])).toEqual(["wait_ms"]);
  });

  it("counts two neighbouring letters swapped as one typo (audit 27: `--nmae` got no guess)", () => {
    expect(meantNames("nmae", ["name", "scope", "plan"])).toEqual(["name"]);
    expect(meantNames("fromat", timeConvert)).toEqual(["format"]);
    // Still one typo: too many for two letters.
    expect(meantNames("di", ["id"])).toEqual([]);
  });

  it("guesses nothing for a name that is not close to any member", () => {
    expect(meantNames("banana", timeConvert)).toEqual([]);
    expect(meantNames("ip", ["id"])).toEqual([]);
    expect(meantNames("ex", ["expression"])).toEqual([]);
    // A longer word that starts with a member is another word, not a slip for it.
    expect(meantNames("timestamp", ["time"])).toEqual([]);
    expect(meantNames("time", timeConvert)).toEqual([]);
  });
});
