import { createHash } from "node:crypto";

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
