import { type CallToolRequest, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { checkIdempotencyKey, type DiscoverRequest } from "../core/api-schemas.js";
import { parseOrThrow, parseRequest } from "../core/validation.js";
import type { ExecuteCall } from "./backend.js";
import { DiscoverSkillsArgs, ExecuteSkillArgs, GetExecutionArgs } from "./generic-tools.js";
import type { ToolTarget } from "./tool-catalog.js";
import { IDEMPOTENCY_META } from "./tool-results.js";

/**
 * execute_skill's arguments that belong elsewhere, which zod would drop: an idempotency key (a
 * retry would run the skill again), and REST's `async` (the call would wait for the end).
 */
const SENT_ELSEWHERE = {
  idempotencykey: `send an idempotency key in the call's _meta, as ${JSON.stringify(IDEMPOTENCY_META)}`,
  async:
    "this call waits for the end; send wait_ms: 0 for the record at once, then get_execution to wait for its end",
};

/** A skill run a tool call asks for. */
export interface ExecuteToolCall {
  tool: "execute";
  request: ExecuteCall["request"];
  waitMs?: number;
  idempotencyKey: string | undefined;
  /** A skill's own tool, whose structured result must match the skill's result schema. */
  ownTool?: boolean;
}

/** A tool call with its arguments parsed: what the backend is asked. */
export type ToolCall =
  | ExecuteToolCall
  | { tool: "discover"; request: DiscoverRequest }
  | { tool: "get_execution"; id: string; waitMs: number };

/**
 * The call `params` make of the tool `target`: its arguments parsed by the tool's schema,
 * its idempotency key checked, on every tool and in both modes. A key that is not text (a
 * counter, an object) or that the REST header could not carry is refused, not ignored: a
 * client retrying with it believes its call runs once. Either refusal is a `ServiceError`.
 */
export function parseToolCall(
  target: ToolTarget,
  { arguments: args = {}, _meta }: CallToolRequest["params"],
): ToolCall {
  const key = _meta?.[IDEMPOTENCY_META];
  const idempotencyKey =
    key === undefined ? undefined : checkIdempotencyKey(key, `_meta[${JSON.stringify(IDEMPOTENCY_META)}]`);
  if (target.kind === "skill") {
    const request = parseOrThrow(ExecuteSkillArgs, { skill_id: target.skill.skill_id, params: args });
    return { tool: "execute", request, idempotencyKey, ownTool: true };
  }
  switch (target.name) {
    case "discover_skills":
      return { tool: "discover", request: parseRequest(DiscoverSkillsArgs, args) };
    case "execute_skill": {
      const { wait_ms, ...request } = parseRequest(ExecuteSkillArgs, args, "object", SENT_ELSEWHERE);
      return { tool: "execute", request, waitMs: wait_ms, idempotencyKey };
    }
    case "get_execution": {
      const { id, wait_ms } = parseRequest(GetExecutionArgs, args);
      return { tool: "get_execution", id, waitMs: wait_ms };
    }
  }
}

/**
 * The run a task-augmented call starts: a skill's own tool, or execute_skill (whose
 * `wait_ms` has no use here). The other tools' taskSupport is forbidden.
 */
export function parseTaskCall(target: ToolTarget, params: CallToolRequest["params"]): ExecuteToolCall {
  const runsSkill = target.kind === "skill" || target.name === "execute_skill";
  const call = runsSkill ? parseToolCall(target, params) : undefined;
  if (call?.tool !== "execute") {
    throw new McpError(
      ErrorCode.InvalidParams,
      `${params.name} does not support task-augmented calls (its taskSupport is forbidden).`,
    );
  }
  return call;
}
