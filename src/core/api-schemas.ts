import { z } from "zod";
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from "../client/idempotency-key.js";
import { EXECUTION_STATUSES } from "./execution/record.js";
import { parseOrThrow } from "./validation.js";
import { wholeNumberText } from "./whole-number.js";

/**
 * Request shapes shared by every surface. REST validates bodies with them, MCP derives
 * its generic tools' input schemas from them, and the OpenAPI document is generated
 * from them, so the three cannot drift apart.
 */

/** contract.md, "POST /v1/execute": 1 ≤ timeout_ms ≤ 300000, default 30000. */
export const MAX_TIMEOUT_MS = 300_000;
export const DEFAULT_TIMEOUT_MS = 30_000;

export const ExecuteRequest = z.object({
  skill_id: z.string().min(1).max(200).describe("Identifier of the skill to execute"),
  params: z
    .record(z.string(), z.unknown())
    .describe("Parameters the skill requires; see the skill's params schema"),
  async: z
    .boolean()
    .default(false)
    .describe("Execute asynchronously (202 with a queued record); default false"),
  // Bounds before `int()`: for 1e308 the first message is then the contract's bound, not
  // the safe-integer range `int()` checks.
  timeout_ms: z
    .number()
    .min(1)
    .max(MAX_TIMEOUT_MS)
    .int()
    .default(DEFAULT_TIMEOUT_MS)
    .describe("Execution timeout in milliseconds, 1–300000; default 30000"),
});
export type ExecuteRequest = z.output<typeof ExecuteRequest>;

/** contract.md, "POST /v1/discover". */
export const DiscoverRequest = z.object({
  query: z.string().min(1).max(1000).describe("Free-text description of the wanted capability"),
  limit: z.number().min(1).max(50).int().default(10).describe("How many results, 1–50; default 10"),
  tags: z
    .array(z.string().min(1).max(100))
    .max(20)
    .optional()
    .describe("Only skills having all these tags, scored and ordered as without the filter"),
});
export type DiscoverRequest = z.output<typeof DiscoverRequest>;

/**
 * An execution id as a request names it: in `/v1/executions/{id}` and in MCP's
 * get_execution alike, so that an id of no execution is refused, or looked up, the same on
 * both. (Ids skillport makes are about 30 characters.)
 */
export const ExecutionId = z.string().min(1).max(100);
export const ExecutionIdParams = z.object({ id: ExecutionId });

export const ListExecutionsQuery = z.object({
  limit: wholeNumberText(1, 100, 20),
  cursor: z.string().min(1).max(500).optional(),
  status: z.enum(EXECUTION_STATUSES).optional(),
  skill_id: z.string().min(1).max(200).optional(),
});
export type ListExecutionsQuery = z.output<typeof ListExecutionsQuery>;

/** The dashboard's listing across every key: the API's filters plus key and owner. */
export const AdminExecutionsQuery = ListExecutionsQuery.extend({
  key_id: z.string().min(1).max(200).optional(),
  owner: z.string().min(1).max(64).optional(),
});
export type AdminExecutionsQuery = z.output<typeof AdminExecutionsQuery>;

/** contract.md: `?wait=N` (0–60 s) long-polls until the record is terminal. */
export const MAX_WAIT_SECONDS = 60;
export const GetExecutionQuery = z.object({
  wait: wholeNumberText(0, MAX_WAIT_SECONDS, 0),
});

export const ListSkillsQuery = z.object({
  limit: wholeNumberText(1, 100, 50),
  cursor: z.string().min(1).max(500).optional(),
});

/** contract.md: `Idempotency-Key` is optional, at most 255 characters (see idempotency-key.ts). */
export const IdempotencyKey = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE)
  .describe(IDEMPOTENCY_KEY_RULE);

/**
 * The key as the core takes it, or an `invalid_request` naming the rule and `where` the
 * caller sent it: `/v1`'s header by default, a surface's own place otherwise (MCP's `_meta`).
 */
export function checkIdempotencyKey(key: unknown, where = "Idempotency-Key"): string {
  // Wrapped so that the details name where the key was sent, not the body's root.
  const sent = z.object({ [where]: IdempotencyKey });
  const message = `${where}: ${IDEMPOTENCY_KEY_RULE}`;
  return parseOrThrow(sent, { [where]: key }, "invalid_request", message)[where] as string;
}
