import { describe, expect, it } from "vitest";
import { unitsConvert } from "../../skills/units-convert.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("units.convert", () => {
  it.each([
    [5, "km", "mi", 3.10685596119],
    [100, "degC", "degF", 212],
    [100, "degF", "degC", 37.7777777778],
    [70, "kg", "lb", 154.323583529],
    [60, "mi/h", "km/h", 96.56064],
    [1, "GiB", "MB", 1073.741824],
    [0, "degC", "K", 273.15],
  ])("converts %d %s to %s", async (value, from, to, expected) => {
    expect(await runSkill(unitsConvert, { value, from, to })).toEqual({
      value: expected,
      unit: to,
      text: `${expected} ${to}`,
    });
  });

  it("refuses units of different dimensions", async () => {
    await expectSkillError(
      unitsConvert,
      { value: 1, from: "m", to: "kg" },
      /Cannot convert m to kg: .*different kinds/,
    );
  });

  it("names an unknown unit", async () => {
    await expectSkillError(unitsConvert, { value: 1, from: "furlongz", to: "m" }, /Unknown unit "furlongz"/);
  });

  it("accepts only unit syntax, never a full expression", () => {
    expect(unitsConvert.params.safeParse({ value: 1, from: 'evaluate("1")', to: "m" }).success).toBe(false);
  });
});
