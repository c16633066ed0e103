import type { Skill } from "../core/skills/skill.js";

/**
 * The skills a module exports: each export that is a skill, or an array of them (like
 * `builtinSkills`). Workers load skills this way, by module, since a function cannot be
 * sent to another thread.
 */
export function skillsOfModule(module: Record<string, unknown>): Skill[] {
  const found = new Map<string, Skill>();
  for (const value of Object.values(module)) {
    for (const candidate of Array.isArray(value) ? value : [value]) {
      if (isSkill(candidate)) found.set(candidate.id, candidate);
    }
  }
  return [...found.values()];
}

function isSkill(value: unknown): value is Skill {
  if (typeof value !== "object" || value === null) return false;
  const { id, run } = value as { id?: unknown; run?: unknown };
  return typeof id === "string" && typeof run === "function";
}
