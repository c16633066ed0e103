import { isoTimestamp } from "../clock.js";
import { newId } from "../ids.js";
import type { SkillRegistry } from "../skills/registry.js";
import type { ExecutionRecord, StoredExecution } from "./record.js";
import { type KeptExecution, withResultKept } from "./redacted-execution.js";
import type { RunOutcome } from "./run-skill.js";

/**
 * A record as it starts: `queued` (async) or `running` (sync, started at once). Its id is
 * made here, from the same instant as its `created_at`: listing newest first is then
 * listing by id (see `ExecutionStore.list`), which the primary key serves.
 */
export function newRecord(skillId: string, nowMs: number, status: "queued" | "running"): ExecutionRecord {
  const at = isoTimestamp(nowMs);
  return {
    id: newId("exec", nowMs),
    skill_id: skillId,
    status,
    success: false,
    error: null,
    latency_ms: null,
    result: null,
    created_at: at,
    started_at: status === "running" ? at : null,
    finished_at: null,
  };
}

/**
 * The record running, its skill begun at `nowMs`: as it is taken to run (most skills begin
 * at once), or as it gets a worker thread after waiting for one (see `markWaitingForThread`).
 * Its params are masked already (`withParamsKept`): a running record needs them whole no more.
 */
export function markRunning(execution: KeptExecution, nowMs: number): KeptExecution {
  return {
    ...execution,
    record: { ...execution.record, status: "running", started_at: isoTimestamp(nowMs) },
  };
}

/**
 * The record of a run waiting for a worker thread: `running` (its timeout counts), but not
 * started, since `started_at` and `latency_ms` are when and how long the skill ran
 * (contract.md). `markRunning` starts it once it has a thread.
 */
export function markWaitingForThread(execution: KeptExecution): KeptExecution {
  return { ...execution, record: { ...execution.record, started_at: null } };
}

/**
 * The terminal record of an outcome; `success` is true exactly when completed (contract.md).
 * Every terminal record is made here, and so is kept without credentials: its params are
 * masked already (`withParamsKept`: a run's as it began; a queued record's, or one read
 * from the store, by the caller), and its result and error message are masked here
 * (`withResultKept`).
 */
export function markFinished(
  execution: KeptExecution,
  outcome: RunOutcome,
  nowMs: number,
  registry: SkillRegistry,
): KeptExecution {
  return withResultKept(finished(execution, outcome, nowMs), registry);
}

function finished(execution: KeptExecution, outcome: RunOutcome, nowMs: number): KeptExecution {
  // A run that never began (it waited for a worker thread to the end) has no start.
  const startedAt = outcome.neverStarted ? null : execution.record.started_at;
  return {
    ...execution,
    record: {
      ...execution.record,
      status: outcome.status,
      success: outcome.status === "completed",
      error: outcome.error,
      result: outcome.status === "completed" ? outcome.result : null,
      started_at: startedAt,
      latency_ms: startedAt === null ? null : outcome.latencyMs,
      finished_at: isoTimestamp(nowMs),
    },
  };
}

/** Milliseconds the execution has been running at `nowMs`; 0 if it never started. */
export function runningFor(execution: StoredExecution, nowMs: number): number {
  const startedAt = execution.record.started_at;
  return startedAt === null ? 0 : nowMs - Date.parse(startedAt);
}
