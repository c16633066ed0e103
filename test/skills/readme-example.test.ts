import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Skill } from "../../src/core/skills/skill.js";
import { runSkill } from "./run-skill.js";
import { describeSkillRules } from "./skill-rules.js";

/**
 * The README's "Write a skill" example, as a reader would copy it into `skills/`: it must
 * pass the rules every built-in skill passes, and run.
 */
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const example = /```ts\n\/\/ (skills\/[\w-]+\.ts)\n([\s\S]*?)```/.exec(readme);
if (!example?.[1] || !example[2])
  throw new Error("README.md has no ```ts block starting with // skills/NAME.ts");

// Copied beside a `node_modules` of the checkout's, its `../src/` import pointed at the sources.
const dir = mkdtempSync(join(tmpdir(), "skillport-readme-"));
mkdirSync(join(dir, "skills"));
symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
const file = join(dir, example[1]);
writeFileSync(file, example[2].replaceAll('"../src/', `"${join(REPO_ROOT, "src")}/`));
const exported = Object.values(await import(pathToFileURL(file).href)) as Skill[];

describe("the README's example skill", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const skill = exported[0] as Skill;

  it("is one skill", () => {
    expect(exported).toHaveLength(1);
  });

  describeSkillRules(skill);

  // Regression (audit 26 F9): it reversed code points, moving a combining accent onto the
  // space before it and re-joining a family emoji's members in reverse order.
  it("reverses characters as a reader sees them: accents and emoji stay whole", async () => {
    await expect(runSkill(skill, { text: "héllo 👨‍👩‍👧 e\u0301" })).resolves.toEqual({
      text: "e\u0301 👨‍👩‍👧 olléh",
    });
  });

  // Audit 32: copied as shown, it failed `npm run lint` (a line the formatter breaks), so
  // the reader's `npm test` failed before any test ran. Checked as written, before the
  // import is pointed at the sources, with the checkout's own configuration.
  it("passes the project's lint and format check as written", () => {
    const asWritten = join(dir, "as-written", example[1] as string);
    mkdirSync(dirname(asWritten), { recursive: true });
    writeFileSync(asWritten, example[2] as string);
    const biome = join(REPO_ROOT, "node_modules", ".bin", "biome");
    const configPath = join(REPO_ROOT, "biome.json");
    const check = spawnSync(biome, ["check", `--config-path=${configPath}`, "--colors=off", asWritten], {
      encoding: "utf8",
    });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  });

  it("runs its own examples", async () => {
    for (const { params } of skill.examples) await expect(runSkill(skill, params)).resolves.toBeDefined();
  });
});
