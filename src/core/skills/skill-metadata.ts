import type { Logger } from "../logger.js";
import { toCatalogSkill } from "./registry.js";
import type { Skill } from "./skill.js";

/** Shorter than this, a description rarely says what the skill takes and returns. */
const MIN_DESCRIPTION_LENGTH = 40;
/** Discovery matches requests against the examples: one is too few to be found by. */
const MIN_EXAMPLES = 2;

/**
 * What makes a skill hard for agents to find or call, though it works: no tags, a short
 * description, fewer than two examples, a param without a description (the rules the
 * built-in skills' tests hold them to, `describeSkillRules`). Told, not refused: a skill
 * in the making may lack them.
 */
export function metadataWarnings(skill: Skill): string[] {
  const warnings: string[] = [];
  if (skill.tags.length === 0) warnings.push("it has no tags (discovery filters and ranks by them)");
  if (skill.description.trim().length < MIN_DESCRIPTION_LENGTH) {
    warnings.push(
      `its description has fewer than ${MIN_DESCRIPTION_LENGTH} characters: say what it does, takes and returns`,
    );
  }
  if (skill.examples.length < MIN_EXAMPLES) {
    warnings.push(
      `it has ${skill.examples.length} example(s): give at least ${MIN_EXAMPLES}, worded as users ask`,
    );
  }
  // The catalog's schema, derived once (`toCatalogSkill`): the one agents are shown.
  const schema = toCatalogSkill(skill).paramsSchema as {
    properties?: Record<string, { description?: unknown }>;
  };
  const undescribed = Object.entries(schema.properties ?? {})
    .filter(([, property]) => typeof property.description !== "string" || property.description === "")
    .map(([name]) => name);
  if (undescribed.length > 0) {
    warnings.push(
      `params ${undescribed.join(", ")} have no .describe(...): agents see no word of what to pass`,
    );
  }
  return warnings;
}

/** Logs one start-up warning per skill whose metadata falls short (`metadataWarnings`). */
export function warnOfPoorMetadata(skills: readonly Skill[], logger: Logger): void {
  for (const skill of skills) {
    const warnings = metadataWarnings(skill);
    if (warnings.length === 0) continue;
    logger.warn({ skill_id: skill.id, warnings }, `skill ${skill.id}: ${warnings.join("; ")}`);
  }
}
