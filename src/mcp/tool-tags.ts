import { normalizeTags } from "../core/skills/tags.js";

/**
 * SKILLPORT_MCP_TOOL_TAGS names tags some skill of the catalog has: a misspelled one
 * would silently give no skill its own tool. The one rule for both modes: embedded mode
 * checks the built-in skills, `--remote` the catalog of the skillport behind.
 */
export function checkToolTags(tags: readonly string[], skills: readonly { tags: readonly string[] }[]): void {
  const known = new Set(skills.flatMap((skill) => normalizeTags(skill.tags)));
  const unknown = normalizeTags(tags).filter((tag) => !known.has(tag));
  if (unknown.length === 0) return;
  throw new Error(
    `Invalid configuration: SKILLPORT_MCP_TOOL_TAGS: no skill has the tag ${unknown.map((tag) => JSON.stringify(tag)).join(", ")} (tags match in any case; GET /v1/skills lists each skill's)`,
  );
}
