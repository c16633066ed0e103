import { createHash } from "node:crypto";
import type { Logger } from "../core/logger.js";

/** contract.md: tool names keep to `[A-Za-z0-9_-]`, at most 64 characters (what LLM APIs accept). */
const MAX_TOOL_NAME = 64;
const OUTSIDE_ALPHABET = /[^A-Za-z0-9_-]/g;

/** The tool name of a skill id: every character outside `[A-Za-z0-9_-]` becomes `_`. */
export function toolNameOf(skillId: string): string {
  return skillId.replace(OUTSIDE_ALPHABET, "_").slice(0, MAX_TOOL_NAME);
}

/**
 * Tool names for skill ids, unique among themselves and against `reserved` names (the
 * generic tools). Two ids rarely map to one name (`a.b` and `a_b`, or a cut at 64
 * characters); the later id, in the order given, then gets a short hash of its id as a
 * suffix, so each name stays stable while the catalog does not change.
 */
export function assignToolNames(
  skillIds: readonly string[],
  reserved: Iterable<string>,
): { skillId: string; name: string }[] {
  const taken = new Set(reserved);
  const names: { skillId: string; name: string }[] = [];
  for (const id of skillIds) {
    let name = toolNameOf(id);
    if (taken.has(name)) {
      const suffix = `_${createHash("sha256").update(id).digest("hex").slice(0, 8)}`;
      name = `${name.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    }
    taken.add(name);
    names.push({ skillId: id, name });
  }
  return names;
}

/**
 * The longest tool name that leaves room for the prefixes assistants add before a name
 * reaches an LLM API: Claude Code sends `mcp__<server>__<tool>`, and the Anthropic API
 * refuses a name over 64 characters, failing every request of the session (for every
 * server's tools); Cursor hides a tool whose server name and tool name pass 60. With a
 * server name of about 10 characters, 40 keeps within both. The contract's 64 still
 * holds: a longer name works where no prefix is added, so it is a warning, not a refusal.
 */
const PREFIXED_TOOL_NAME_ROOM = 40;

/**
 * Warns at start-up, once per skill, of a tool name (as `assignToolNames` gives it beside
 * `reserved`) that took a hash suffix, or that is longer than `PREFIXED_TOOL_NAME_ROOM`,
 * so that the skill's author can give it another id before an assistant fails on it.
 */
export function warnOfToolNames(
  skillIds: readonly string[],
  reserved: Iterable<string>,
  logger: Logger,
): void {
  for (const { skillId, name } of assignToolNames(skillIds, reserved)) {
    const plain = toolNameOf(skillId);
    if (name !== plain) {
      // Otherwise the author learns the suffixed name only from tools/list.
      logger.warn(
        { skill_id: skillId, tool_name: name, taken_name: plain },
        `skill ${skillId}: its MCP tool name ${plain} is taken (by a generic tool, or by a skill whose id comes ` +
          `first and maps to the same name), so its tool is named ${name}, with a hash of its id. ` +
          "Give the skill an id that maps to a name of its own (the id with _ for . : /, cut at 64).",
      );
    }
    if (name.length <= PREFIXED_TOOL_NAME_ROOM) continue;
    logger.warn(
      { skill_id: skillId, tool_name: name, characters: name.length },
      `skill ${skillId}: its MCP tool name ${name} has ${name.length} characters, over ${PREFIXED_TOOL_NAME_ROOM}: ` +
        "assistants prefix tool names (Claude Code sends mcp__<server>__<tool>, and the Anthropic API refuses a " +
        "name over 64 characters, failing every request; Cursor hides a tool whose server and tool name pass 60). " +
        `Give the skill a shorter id (at most ${PREFIXED_TOOL_NAME_ROOM} characters).`,
    );
  }
}
