import { builtinSkills } from "../skills/index.js";
import type { Skill } from "./core/skills/skill.js";
import { type SkillSource, skillsOf } from "./isolation/skill-modules.js";
import { runtimeFile } from "./package-files.js";

/**
 * The skills this server runs: the built-in ones. A module of more skills is one more
 * entry here, which the core, the worker threads and the CLI's checks of skill ids then
 * all hold.
 */
export const SKILL_SOURCES: readonly SkillSource[] = [
  { moduleUrl: runtimeFile("skills/index.ts"), skills: builtinSkills },
];

/** Every skill of `SKILL_SOURCES`, as the server's catalog holds them. */
export function serverSkills(): Skill[] {
  return skillsOf(SKILL_SOURCES);
}
