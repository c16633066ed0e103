import { z } from "zod";
import { EXECUTION_ERROR_CODES } from "../errors.js";

/** contract.md, "Execution record": `queued` and `running` are not terminal. */
export const EXECUTION_STATUSES = [
  "queued",
  "running",
  "completed",
  "failed",
  "timed_out",
  "cancelled",
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** The statuses a record never leaves (contract.md, "Execution record"). */
const TERMINAL_STATUSES = [
  "completed",
  "failed",
  "timed_out",
  "cancelled",
] as const satisfies readonly ExecutionStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

const TERMINAL: ReadonlySet<ExecutionStatus> = new Set(TERMINAL_STATUSES);

export function isTerminal(status: ExecutionStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * The execution record exactly as clients see it (snake_case, as the spec names it).
 * Defined once as a schema: the type, the OpenAPI document and the MCP output schema
 * all come from it.
 */
const ExecutionRecordFields = z.object({
  id: z.string().describe("Identifier of the execution"),
  skill_id: z.string().describe("Identifier of the executed skill"),
  status: z.enum(EXECUTION_STATUSES).describe("queued and running are not terminal"),
  success: z.boolean().describe("true exactly when status is completed"),
  error: z
    .object({ code: z.enum(EXECUTION_ERROR_CODES), message: z.string() })
    .nullable()
    .describe("Why the execution did not succeed; null when it did or is not finished"),
  latency_ms: z.number().nullable().describe("Time spent running the skill; null until it started"),
  result: z.record(z.string(), z.unknown()).nullable().describe("Output of the skill; null unless completed"),
  created_at: z.string().describe("ISO 8601 UTC"),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

/** Registered under an id, so that documents which reference it (OpenAPI) name it once. */
export const ExecutionRecordSchema = ExecutionRecordFields.meta({ id: "ExecutionRecord" });
/** The same schema standing alone: where a document must hold it whole (MCP `outputSchema`). */
export const ExecutionRecordInline = ExecutionRecordFields;
export type ExecutionRecord = z.output<typeof ExecutionRecordSchema>;

/**
 * The record as a reader sees it at `nowMs`: a running execution's `latency_ms` is the
 * time it has run so far (contract.md: null only until it started). Stored records keep
 * null until the end, so the value is never stale.
 */
export function recordAsOf(record: ExecutionRecord, nowMs: number): ExecutionRecord {
  if (record.status !== "running" || record.started_at === null) return record;
  return { ...record, latency_ms: Math.max(0, nowMs - Date.parse(record.started_at)) };
}

/** A record with what the service keeps about it but does not show. */
export interface StoredExecution {
  record: ExecutionRecord;
  /** Tenant of the key that started it; only keys of this owner see it. */
  owner: string;
  keyId: string;
  params: Record<string, unknown>;
  async: boolean;
  timeoutMs: number;
  /** The process (runner) that owns the execution while it is not terminal. */
  runnerId: string;
}
