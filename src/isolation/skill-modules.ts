import type { Skill } from "../core/skills/skill.js";

/**
 * Where skills come from: a module, and the skills it exports as the main thread imported
 * them. The main thread runs and lists `skills`; a worker thread imports `moduleUrl` and
 * finds the same skills there (skillsOfModule), since a function cannot be sent to
 * another thread. Described once, so that the two cannot name different catalogs.
 */
export interface SkillSource {
  moduleUrl: URL;
  skills: readonly Skill[];
}

/** Every skill of `sources`, in order. */
export function skillsOf(sources: readonly SkillSource[]): Skill[] {
  return sources.flatMap((source) => source.skills);
}

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
