import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { DiscoverResponseSchema } from "../core/answer-schemas.js";
import { DiscoverRequest, ExecuteRequest, ExecutionId, MAX_TIMEOUT_MS } from "../core/api-schemas.js";
import { ExecutionRecordInline } from "../core/execution/record.js";
import type { Scope } from "../core/keys/api-key.js";
import { OPTIONAL_TASKS } from "./execution-tasks.js";
import { toolSchema } from "./tool-schemas.js";

/**
 * The three tools every client sees (contract.md, "MCP surface"). Their input schemas
 * come from the same zod schemas that validate `/v1` bodies, and the output schemas of
 * `discover_skills` and `get_execution` from those of the `/v1` answers they repeat as
 * `structuredContent` (the discover answer, the record), so the two cannot drift.
 */

/**
 * `get_execution` long-polls like `GET /v1/executions/{id}?wait=`, but answers well within
 * the 60 s after which the official SDK client (and others) give up on a request: a wait
 * of the full 60 s was answered just as the client stopped listening, and the agent got
 * "Request timed out" instead of the record.
 */
const MAX_POLL_MS = 50_000;

/**
 * What the agent choosing `wait_ms` must know, since it reads the tool's text and not the
 * README: the default wait is the whole timeout (contract.md), but the client's own
 * request timeout (60 s in the official SDKs, which do not reset it on progress) cancels a
 * longer call, and the run with it, before any execution id reaches the agent.
 */
const CLIENT_TIMEOUT_NOTE = `Keep wait_ms under your client's request timeout (60 s in the official MCP SDKs, which cancel the call, and the run, when it passes): for a run that may take longer, pass wait_ms of at most ${MAX_POLL_MS} and poll with get_execution.`;

export const DiscoverSkillsArgs = DiscoverRequest;

export const ExecuteSkillArgs = ExecuteRequest.omit({ async: true }).extend({
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `How long to wait for the result, in milliseconds. Default: the whole timeout. If the skill is still running then, the answer is its execution record: poll it with get_execution. ${CLIENT_TIMEOUT_NOTE}`,
    ),
});

export const GetExecutionArgs = z.object({
  id: ExecutionId.describe("Execution id, as returned by execute_skill"),
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(MAX_POLL_MS)
    .default(0)
    .describe(`Wait up to this many milliseconds (≤ ${MAX_POLL_MS}) for the execution to end; default 0`),
});

export const GENERIC_TOOL_NAMES = ["discover_skills", "execute_skill", "get_execution"] as const;
export type GenericToolName = (typeof GENERIC_TOOL_NAMES)[number];

const inputSchema = (schema: z.ZodType) =>
  toolSchema(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }));
const outputSchema = (schema: z.ZodType) => toolSchema(z.toJSONSchema(schema, { io: "output" }));

/** contract.md: the generic tools carry `_meta["anthropic/alwaysLoad"] = true`. */
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true };

const DISCOVER_DESCRIPTION =
  "Find the skills that can do a task. Describe the task in plain words (e.g. 'convert 5 miles to km', 'send a message to the ops channel'); the answer lists the best-matching skills, best first, each with its skill_id, description and params JSON Schema.";
/** What a key that may only discover is told instead of tools it does not see (contract.md). */
export const DISCOVER_ONLY = "This key may only discover skills: running one needs a full-access key.";

export const GENERIC_TOOLS: Record<GenericToolName, Tool> = {
  discover_skills: {
    name: "discover_skills",
    title: "Discover skills",
    description: `${DISCOVER_DESCRIPTION} Then run one with execute_skill (or its own tool, if listed).`,
    inputSchema: inputSchema(DiscoverSkillsArgs),
    outputSchema: outputSchema(DiscoverResponseSchema),
    annotations: {
      title: "Discover skills",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    _meta: ALWAYS_LOAD,
  },
  execute_skill: {
    name: "execute_skill",
    title: "Execute a skill",
    description: `Run a skill by its skill_id (from discover_skills) with params matching its params schema. Returns the skill's result when it finishes within wait_ms (default: its whole timeout_ms); otherwise the record of the still-running execution, to poll with get_execution. ${CLIENT_TIMEOUT_NOTE} A failed run is an error result whose text starts with the error code.`,
    inputSchema: inputSchema(ExecuteSkillArgs),
    annotations: {
      title: "Execute a skill",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    execution: OPTIONAL_TASKS,
    _meta: ALWAYS_LOAD,
  },
  get_execution: {
    name: "get_execution",
    title: "Get an execution",
    description:
      "Read the record of an execution started by execute_skill: its status (queued, running, completed, failed, timed_out, cancelled), result or error. With wait_ms, waits up to that long for it to end.",
    inputSchema: inputSchema(GetExecutionArgs),
    outputSchema: outputSchema(ExecutionRecordInline),
    annotations: {
      title: "Get an execution",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    _meta: ALWAYS_LOAD,
  },
};

/** `discover_skills` as a read-only key sees it: the one tool it lists, naming no tool it cannot call. */
export const DISCOVER_ONLY_TOOL: Tool = {
  ...GENERIC_TOOLS.discover_skills,
  description: `${DISCOVER_DESCRIPTION} ${DISCOVER_ONLY}`,
};

/**
 * The server's `instructions` for a caller of `scope`: a read-only key is not told to run
 * skills with tools it does not see. A scope not known yet (remote mode, a key over its
 * rate limit at start) gets the full text: such a key may still call execute_skill and
 * get_execution once the limit allows, and is refused by scope where it cannot.
 */
export function serverInstructions(scope: Scope | undefined): string {
  const find =
    "Call discover_skills with a plain description of the task to get the best-matching skills and their params schemas";
  if (scope === "read-only") return `skillport finds skills. ${find}. ${DISCOVER_ONLY}`;
  return `skillport finds and runs skills. ${find}; run one with execute_skill (or with its own tool when one is listed), and poll long runs with get_execution.`;
}
