import type { Logger } from "../logger.js";
import type { ProgressUpdate } from "../skills/skill.js";
import { maskedSkillText } from "./skill-output-masking.js";

/**
 * Whether `value` can be a progress or total a caller is told: a finite number. MCP's
 * `notifications/progress` carries both as JSON numbers (MCP 2025-11-25, "Progress"), and
 * NaN and ±Infinity are none (`JSON.stringify` writes them as `null`); a string or any
 * other type passed by a JavaScript skill (TypeScript checks only typed callers) is none.
 */
function isProgressNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * A skill's progress update as callers are told it (SSE `progress` events, MCP
 * `notifications/progress`, other processes' followers): its documented members only, so a
 * skill that passes a wider object (`{ progress, total, type: "status" }`, which TypeScript
 * accepts from a variable) overwrites no member of the event and leaks nothing else, and
 * its message masked as everything else a skill says (`maskedSkillText`). A total that is
 * not a finite number is left out (`skillProgress` below states the rule for a skill's updates).
 */
export function shownProgress(update: ProgressUpdate): ProgressUpdate {
  const { progress, total, message } = update;
  return {
    progress,
    ...(isProgressNumber(total) && { total }),
    ...(typeof message === "string" && { message: maskedSkillText(message) }),
  };
}

/** What a skill's progress update cannot carry, and so what of it is dropped. */
interface ProgressFault {
  drops: "update" | "total";
  /** Said in the log: what was wrong, naming the kind of value found, never the value. */
  problem: string;
}

/** What is wrong with a progress update a skill reported; undefined when it can be told as it is. */
function progressFault(update: unknown): ProgressFault | undefined {
  if (typeof update !== "object" || update === null) {
    return { drops: "update", problem: `the update is ${describe(update)}, not an object` };
  }
  const { progress, total } = update as Record<string, unknown>;
  if (!isProgressNumber(progress)) {
    return { drops: "update", problem: `its progress is ${describe(progress)}, not a finite number` };
  }
  if (total !== undefined && !isProgressNumber(total)) {
    return { drops: "total", problem: `its total is ${describe(total)}, not a finite number` };
  }
  return undefined;
}

/**
 * A value's kind, never its content: a third-party skill may pass anything, a credential
 * included, and the log is no place for it.
 */
function describe(value: unknown): string {
  if (typeof value === "number") return String(value); // NaN, Infinity or -Infinity
  if (value === null || value === undefined) return String(value);
  return `a ${typeof value}`;
}

/**
 * A skill's `ctx.progress`, the one place every update a skill reports passes (run in
 * process or in a worker thread, whose updates the main thread replays here) before
 * anyone hears of it. The rule: an update without a finite number `progress` is dropped,
 * as progress that cannot be told; a `total` that is not a finite number is left out and
 * the progress still told. The first such update of an execution is logged (a warning
 * naming what was wrong, for the skill's author); later ones are dropped quietly, as a
 * skill that reports NaN on every tick would otherwise fill the log. `report` gets the
 * updates as callers are told them (`shownProgress`).
 */
export function skillProgress(
  logger: Logger,
  report: (update: ProgressUpdate) => void,
): (update: unknown) => void {
  let warned = false;
  return (update) => {
    const fault = progressFault(update);
    if (fault && !warned) {
      warned = true;
      logger.warn(
        { problem: fault.problem },
        fault.drops === "update"
          ? "a progress update of the skill was ignored (later ones like it are ignored without a log line)"
          : "a progress update's total was left out (later ones like it are left out without a log line)",
      );
    }
    if (fault?.drops === "update") return;
    report(shownProgress(update as ProgressUpdate));
  };
}
