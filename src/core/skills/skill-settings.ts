import { safeParseInWords } from "../validation.js";
import type { Skill } from "./skill.js";

/**
 * The operator's per-skill settings checked against what each skill declares (its
 * `settings` schema), by skill id, as the schemas parse them. A setting that cannot work (an
 * id no skill has, a skill that takes none, an unknown or mistyped setting) throws, naming
 * every problem: silently ignored, a typo would leave the skill as if it had no setting
 * (`http.request` refusing private addresses that were meant to be allowed, say).
 */
export function checkSkillSettings(
  skills: readonly Skill[],
  given: Readonly<Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  const byId = new Map(skills.map((skill) => [skill.id, skill]));
  const configurable = skills.filter((skill) => skill.settings).map((skill) => skill.id);
  const problems: string[] = [];
  const checked: Record<string, Record<string, unknown>> = {};
  for (const [id, settings] of Object.entries(given)) {
    const schema = byId.get(id)?.settings;
    if (!schema) {
      const why = byId.has(id) ? "this skill takes no settings" : "no skill has this id";
      problems.push(`${id}: ${why} (skills with settings: ${configurable.join(", ") || "none"})`);
      continue;
    }
    // Strict whatever the skill wrote: an unknown setting is a typo to report, never to drop.
    const parsed = safeParseInWords(schema.strict(), settings);
    if (parsed.success) checked[id] = parsed.data;
    else
      problems.push(
        ...parsed.error.issues.map((issue) => `${[id, ...issue.path].join(".")}: ${issue.message}`),
      );
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  return checked;
}
