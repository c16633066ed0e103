import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../contract/harness.js";

describe("the package's main entry", () => {
  it("gives a skill's author defineSkill, SkillError and the sensitive marks (`import … from 'skillport'`)", () => {
    const script = "const m = await import('skillport'); console.log(Object.keys(m).sort().join(','));";
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(out.trim()).toBe("SkillError,defineSkill,notSensitive,sensitive");
  });
});
