import type { ExecutionErrorCode } from "../errors.js";

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

const TERMINAL: ReadonlySet<ExecutionStatus> = new Set(["completed", "failed", "timed_out", "cancelled"]);

export function isTerminal(status: ExecutionStatus): boolean {
  return TERMINAL.has(status);
}

/** The execution record exactly as clients see it (snake_case, as the spec names it). */
export interface ExecutionRecord {
  id: string;
  skill_id: string;
  status: ExecutionStatus;
  /** true exactly when `status` is `completed`. */
  success: boolean;
  error: { code: ExecutionErrorCode; message: string } | null;
  /** Time spent running the skill; null until it started. */
  latency_ms: number | null;
  result: Record<string, unknown> | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
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
