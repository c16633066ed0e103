import type { DiscoverResponse, SkillDetail } from "../core/answer-schemas.js";
import type { ExecutionRecord, ExecutionStatus, TerminalStatus } from "../core/execution/record.js";
import type { Page } from "./types.js";

/**
 * What a successful answer must look like for the client to hand it on: a proxy, a cache
 * or another service on the port can answer 200 with JSON that is not skillport's, and
 * code reading `record.status` of `null`, or polling a "record" that never ends, fails far
 * from the cause. Only what the client and its callers rely on is checked, so a newer
 * server that adds fields still passes.
 */
export interface AnswerShape<T> {
  /** What the answer should be, for the `unexpected_response` message. */
  what: string;
  matches(value: unknown): value is T;
}

/** contract.md, "Execution record": the statuses a record never leaves. */
export const TERMINAL: Record<ExecutionStatus, boolean> & Record<TerminalStatus, true> = {
  queued: false,
  running: false,
  completed: true,
  failed: true,
  timed_out: true,
  cancelled: true,
};

export const EXECUTION_RECORD: AnswerShape<ExecutionRecord> = {
  what: "an execution record",
  matches: (value): value is ExecutionRecord =>
    isObject(value) &&
    typeof value.id === "string" &&
    typeof value.status === "string" &&
    Object.hasOwn(TERMINAL, value.status),
};

export const DISCOVER_ANSWER: AnswerShape<DiscoverResponse> = {
  what: "a list of discovered skills",
  matches: (value): value is DiscoverResponse => isObject(value) && Array.isArray(value.results),
};

export const SKILL: AnswerShape<SkillDetail> = {
  what: "a skill",
  matches: (value): value is SkillDetail => isObject(value) && typeof value.skill_id === "string",
};

export const PAGE: AnswerShape<Page<never>> = {
  what: "a page of a list",
  matches: (value): value is Page<never> =>
    isObject(value) &&
    Array.isArray(value.data) &&
    (value.next_cursor === null || value.next_cursor === undefined || typeof value.next_cursor === "string"),
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
