import { describe, expect, it } from "vitest";
import { SkillNames } from "../../src/core/discovery/skill-names.js";

describe("the skill a name that is no skill's id was meant to be", () => {
  const names = new SkillNames();
  for (const id of ["math.evaluate", "message.send", "util.wait", "wait"]) names.add(id);

  it("is the skill it spells, in any spelling of the id", () => {
    expect(names.meant("math_evaluate")).toEqual(["math.evaluate"]);
    expect(names.meant("Message Send")).toEqual(["message.send"]);
  });

  // Claude Code names skillport's tools mcp__<server>__<tool>, and agents send that as an id.
  it("is the skill its last words spell, when a client put a prefix before a tool's name", () => {
    expect(names.meant("mcp__skillport__math_evaluate")).toEqual(["math.evaluate"]);
    expect(names.meant("skillport.message.send")).toEqual(["message.send"]);
    // The longest name wins: util.wait, not wait.
    expect(names.meant("mcp__skillport__util_wait")).toEqual(["util.wait"]);
  });

  it("is none when no run of its last words spells a skill, nor a discover query's named skill", () => {
    expect(names.meant("no.such.skill")).toEqual([]);
    expect(names.meant("math.evaluate.now")).toEqual([]);
    // Discovery's lookup stays exact: a query ending in a skill's words names no skill.
    expect(names.named("mcp__skillport__math_evaluate")).toEqual([]);
  });
});
