import type { ExecutionRecord } from "../../src/core/execution/record.js";

/**
 * A record of a running execution as the service sends one, for tests whose fake server
 * or backend answers with it (a run that was started and could not be followed).
 */
export function runningRecord(skillId: string): ExecutionRecord {
  return {
    id: "exec_0VbwQzvZ000eZAv4aMMqKeU12",
    skill_id: skillId,
    status: "running",
    success: false,
    error: null,
    latency_ms: null,
    result: null,
    created_at: "2026-11-25T00:00:00.000Z",
    started_at: "2026-11-25T00:00:00.000Z",
    finished_at: null,
  };
}
