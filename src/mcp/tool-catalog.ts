import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SkillDetail } from "../core/answer-schemas.js";
import { SkillNames } from "../core/discovery/skill-names.js";
import type { Scope } from "../core/keys/api-key.js";
import type { Logger } from "../core/logger.js";
import { normalizeTag, normalizeTags } from "../core/skills/tags.js";
import { OPTIONAL_TASKS } from "./execution-tasks.js";
import {
  DISCOVER_ONLY,
  DISCOVER_ONLY_TOOL,
  GENERIC_TOOL_NAMES,
  GENERIC_TOOLS,
  type GenericToolName,
} from "./generic-tools.js";
import { assignToolNames } from "./tool-names.js";
import { toolSchema } from "./tool-schemas.js";

export interface SkillToolOptions {
  /** contract.md: `SKILLPORT_MCP_MAX_TOOLS`, default 40. */
  maxTools: number;
  /** Only skills with at least one of these tags (in any case) get their own tool (all when empty). */
  tags: readonly string[];
}

/** What a tool name stands for. */
export type ToolTarget = { kind: "generic"; name: GenericToolName } | { kind: "skill"; skill: SkillDetail };

const SKILL_ID_META = "skillport/skill_id";

/**
 * The tools of one catalog: the generic three, then one per skill up to the cap
 * (contract.md, "MCP surface"). Beyond the cap, skills are reached through the
 * generic tools.
 */
export class ToolCatalog {
  private readonly skillTools: Tool[];
  private readonly targets = new Map<string, ToolTarget>();
  /** Every skill of the catalog by the words of its id, and the tool of each that has one. */
  private readonly skillNames = new SkillNames();
  private readonly toolOfSkill = new Map<string, string>();

  constructor(skills: readonly SkillDetail[], options: SkillToolOptions) {
    for (const skill of skills) this.skillNames.add(skill.skill_id);
    const { chosen } = skillsForTools(skills, options);
    const byId = new Map(chosen.map((skill) => [skill.skill_id, skill]));
    this.skillTools = [];
    for (const name of GENERIC_TOOL_NAMES) this.targets.set(name, { kind: "generic", name });
    for (const { skillId, name } of assignToolNames([...byId.keys()], GENERIC_TOOL_NAMES)) {
      const skill = byId.get(skillId);
      if (!skill) continue;
      this.skillTools.push(skillTool(skill, name));
      this.targets.set(name, { kind: "skill", skill });
      this.toolOfSkill.set(skill.skill_id, name);
    }
  }

  /** contract.md: a read-only key lists (and calls) only `discover_skills`. */
  list(scope: Scope): Tool[] {
    if (scope === "read-only") return [DISCOVER_ONLY_TOOL];
    return [...GENERIC_TOOL_NAMES.map((name) => GENERIC_TOOLS[name]), ...this.skillTools];
  }

  resolve(toolName: string): ToolTarget | undefined {
    return this.targets.get(toolName);
  }

  /**
   * What a call of `toolName`, which `resolve` does not know, is told. An agent sees skills
   * under two spellings, ids (`math.evaluate`, in discover_skills' answers and the tools'
   * texts) and tool names (`math_evaluate`): a name that spells a skill's id is pointed at
   * that skill's tool, or at execute_skill when it has none here. A read-only key is pointed
   * only at what it can call, as `list` shows it (contract.md).
   */
  unknownToolMessage(toolName: string, scope: Scope): string {
    const unknown = `Unknown tool ${JSON.stringify(toolName)}`;
    if (scope === "read-only") return `${unknown}; call discover_skills. ${DISCOVER_ONLY}`;
    const ids = this.skillNames.meant(toolName);
    const skillId = ids.includes(toolName) ? toolName : ids[0];
    if (skillId === undefined) return `${unknown}; call tools/list, or discover_skills and execute_skill.`;
    const tool = this.toolOfSkill.get(skillId);
    const skill = JSON.stringify(skillId);
    return tool
      ? `${unknown}; did you mean ${tool}, the tool of skill ${skill}?`
      : `${unknown}; skill ${skill} has no tool of its own here: call execute_skill with skill_id ${skill}.`;
  }
}

/**
 * Which skills get a tool of their own: those with a wanted tag (all when none is wanted),
 * in the order given (the catalog's, by id), up to the cap; `pastCap` are those the cap
 * left out, reached only through the generic tools. The one rule for the tools listed and
 * the start-up warning about the cap.
 */
function skillsForTools<S extends { tags: readonly string[] }>(
  skills: readonly S[],
  options: SkillToolOptions,
): { chosen: S[]; pastCap: S[] } {
  const wanted = new Set(normalizeTags(options.tags));
  const eligible = skills.filter(
    (skill) => wanted.size === 0 || skill.tags.some((tag) => wanted.has(normalizeTag(tag))),
  );
  const cap = Math.max(0, options.maxTools);
  return { chosen: eligible.slice(0, cap), pastCap: eligible.slice(cap) };
}

/** How many ids a start-up warning names before it says "and N more". */
const NAMED_IN_WARNING = 20;

/**
 * Warns at start-up when SKILLPORT_MCP_MAX_TOOLS leaves skills without a tool of their own:
 * which ones (the last by id), and how to choose instead. An agent that
 * called such a skill's tool yesterday finds it gone once a few skills are added.
 */
export function warnOfSkillsPastToolCap(
  skills: readonly { id: string; tags: readonly string[] }[],
  options: SkillToolOptions,
  logger: Logger,
): void {
  const byId = [...skills].sort((a, b) => (a.id < b.id ? -1 : 1));
  const { chosen, pastCap } = skillsForTools(byId, options);
  if (pastCap.length === 0) return;
  const ids = pastCap.map((skill) => skill.id);
  const named = ids.slice(0, NAMED_IN_WARNING).join(", ");
  const more = ids.length > NAMED_IN_WARNING ? ` and ${ids.length - NAMED_IN_WARNING} more` : "";
  const tagged = options.tags.length > 0 ? ` with the tags of SKILLPORT_MCP_TOOL_TAGS` : "";
  logger.warn(
    { skills_without_tool: ids, max_tools: options.maxTools },
    `MCP: ${chosen.length + pastCap.length} skills${tagged} qualify for a tool of their own, over ` +
      `SKILLPORT_MCP_MAX_TOOLS=${options.maxTools}: ${ids.length} of them, the last by id, get none and are ` +
      `reached over MCP only through discover_skills and execute_skill: ${named}${more}. Raise ` +
      "SKILLPORT_MCP_MAX_TOOLS, or choose the skills that get tools with SKILLPORT_MCP_TOOL_TAGS.",
  );
}

/** A skill as a tool: its params as input, its result as output, its metadata as hints. */
function skillTool(skill: SkillDetail, name: string): Tool {
  const { annotations } = skill;
  return {
    name,
    title: skill.name,
    description: skill.description,
    inputSchema: toolSchema(skill.params),
    ...(skill.result.type === "object" ? { outputSchema: toolSchema(skill.result) } : {}),
    annotations: {
      title: skill.name,
      readOnlyHint: annotations.readOnly,
      destructiveHint: annotations.destructive,
      idempotentHint: annotations.idempotent,
      openWorldHint: annotations.openWorld,
    },
    execution: OPTIONAL_TASKS,
    _meta: { [SKILL_ID_META]: skill.skill_id },
  };
}
