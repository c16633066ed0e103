import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SkillDetail } from "../core/answer-schemas.js";
import type { Scope } from "../core/keys/api-key.js";
import { normalizeTag, normalizeTags } from "../core/skills/tags.js";
import { OPTIONAL_TASKS } from "./execution-tasks.js";
import { GENERIC_TOOL_NAMES, GENERIC_TOOLS, type GenericToolName } from "./generic-tools.js";
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

  constructor(skills: readonly SkillDetail[], options: SkillToolOptions) {
    const wanted = new Set(normalizeTags(options.tags));
    const chosen = skills
      .filter((skill) => wanted.size === 0 || skill.tags.some((tag) => wanted.has(normalizeTag(tag))))
      .slice(0, Math.max(0, options.maxTools));
    const byId = new Map(chosen.map((skill) => [skill.skill_id, skill]));
    this.skillTools = [];
    for (const name of GENERIC_TOOL_NAMES) this.targets.set(name, { kind: "generic", name });
    for (const { skillId, name } of assignToolNames([...byId.keys()], GENERIC_TOOL_NAMES)) {
      const skill = byId.get(skillId);
      if (!skill) continue;
      this.skillTools.push(skillTool(skill, name));
      this.targets.set(name, { kind: "skill", skill });
    }
  }

  /** contract.md: a read-only key lists (and calls) only `discover_skills`. */
  list(scope: Scope): Tool[] {
    if (scope === "read-only") return [GENERIC_TOOLS.discover_skills];
    return [...GENERIC_TOOL_NAMES.map((name) => GENERIC_TOOLS[name]), ...this.skillTools];
  }

  resolve(toolName: string): ToolTarget | undefined {
    return this.targets.get(toolName);
  }
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
