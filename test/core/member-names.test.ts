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

  // Found by the MCP audit (session 39): each was dropped, and the call ran without it.
  it("names a member that a name gives in another unit of time, or by a word agents use for it", () => {
    const executeSkill = ["skill_id", "params", "timeout_ms", "wait_ms"];
    expect(meantNames("timeout_seconds", executeSkill)).toEqual(["timeout_ms"]);
    expect(meantNames("timeoutSeconds", executeSkill)).toEqual(["timeout_ms"]);
    expect(meantNames("wait_seconds", executeSkill)).toEqual(["wait_ms"]);
    expect(meantNames("wait_time_ms", executeSkill)).toEqual(["wait_ms"]);
    expect(meantNames("arguments", executeSkill)).toEqual(["params"]);
    expect(meantNames("args", executeSkill)).toEqual(["params"]);
    expect(meantNames("max_results", ["query", "limit", "tags"])).toEqual(["limit"]);
    expect(meantNames("top_k", ["query", "limit", "tags"])).toEqual(["limit"]);
    // Another thing measured in time is not the member.
    expect(meantNames("retry_after_seconds", executeSkill)).toEqual([]);
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
