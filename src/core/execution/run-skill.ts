import type { ExecutionErrorCode } from "../errors.js";
import type { Logger } from "../logger.js";
import { type Skill, type SkillContext, SkillError } from "../skills/skill.js";
import { checkResult } from "./checked-result.js";
import type { LazyAbortController } from "./lazy-abort-controller.js";
import { exceedsJsonSize, MAX_RESULT_BYTES } from "./result-size.js";
import type { SkillExecutor } from "./skill-executor.js";

/** Why an execution's signal fired; the reason decides its terminal status. */
export const ABORT_REASONS = {
  timeout: "timeout",
  cancel: "cancel",
  shutdown: "shutdown",
} as const;
export type AbortReason = keyof typeof ABORT_REASONS;

export interface RunOutcome {
  status: "completed" | "failed" | "timed_out" | "cancelled";
  result: Record<string, unknown> | null;
  error: { code: ExecutionErrorCode; message: string } | null;
  latencyMs: number;
}

export interface RunOptions {
  timeoutMs: number;
  /** Aborted with an `AbortReason` by whoever cancels or shuts down. */
  controller: LazyAbortController;
  /** Its signal must be `controller`'s. */
  context: SkillContext;
  logger: Logger;
  /** Where `run` executes: on this thread or isolated in a worker. */
  executor: SkillExecutor;
}

/**
 * Runs one skill under its timeout. The skill's signal fires on timeout, cancellation or
 * shutdown; the outcome does not wait for a skill that ignores its signal. Never throws:
 * every failure becomes an outcome, so no execution is left without a terminal status.
 */
export async function runSkill(
  skill: Skill,
  params: Record<string, unknown>,
  options: RunOptions,
): Promise<RunOutcome> {
  const { controller, timeoutMs, logger } = options;
  const started = performance.now();
  const timer = setTimeout(() => controller.abort(ABORT_REASONS.timeout), timeoutMs);
  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  let detachAbort = () => {};
  try {
    const aborted = new Promise<never>((_, reject) => {
      detachAbort = controller.onAbort(reject);
    });
    const running = Promise.resolve().then(() => options.executor.invoke(skill, params, options.context));
    // A skill that ignores its signal may settle later; its outcome is no longer wanted.
    running.catch(() => {});
    const output = await Promise.race([running, aborted]);
    // Before the schema walks it, and before anything serializes it.
    if (exceedsJsonSize(output, MAX_RESULT_BYTES)) {
      return failedOutcome(
        "execution_failed",
        `The skill ${skill.id} produced a result larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB; ask for less (filter, select or page the data).`,
        elapsed(),
      );
    }
    const checked = checkResult(skill.result, output);
    if (!checked.success) {
      logger.error({ issues: checked.issues }, "skill returned a result that does not match its schema");
      return failedOutcome(
        "execution_failed",
        `The skill ${skill.id} returned an invalid result.`,
        elapsed(),
      );
    }
    return { status: "completed", result: checked.result, error: null, latencyMs: elapsed() };
  } catch (err) {
    return outcomeOfError(err, controller.reason, skill, timeoutMs, elapsed(), logger);
  } finally {
    clearTimeout(timer);
    detachAbort();
  }
}

function outcomeOfError(
  err: unknown,
  abortReason: AbortReason | undefined,
  skill: Skill,
  timeoutMs: number,
  latencyMs: number,
  logger: Logger,
): RunOutcome {
  if (abortReason !== undefined) {
    switch (abortReason) {
      case "timeout":
        return {
          status: "timed_out",
          result: null,
          error: {
            code: "execution_timeout",
            message: `The execution exceeded its timeout of ${timeoutMs} ms.`,
          },
          latencyMs,
        };
      case "shutdown":
        return failedOutcome(
          "execution_interrupted",
          "The service shut down while the execution was running.",
          latencyMs,
        );
      default:
        return cancelledOutcome("The execution was cancelled.", latencyMs);
    }
  }
  if (err instanceof SkillError) return failedOutcome("execution_failed", err.message, latencyMs);
  // An unexpected exception is a bug in the skill: log it whole, show the caller no internals.
  logger.error({ err }, "skill threw an unexpected error");
  return failedOutcome("execution_failed", `The skill ${skill.id} failed unexpectedly.`, latencyMs);
}

/** A `failed` outcome; the one constructor for every failure, whoever decides it. */
export function failedOutcome(code: ExecutionErrorCode, message: string, latencyMs: number): RunOutcome {
  return { status: "failed", result: null, error: { code, message }, latencyMs };
}

/** A `cancelled` outcome, whether the execution was running or still queued. */
export function cancelledOutcome(message: string, latencyMs: number): RunOutcome {
  return { status: "cancelled", result: null, error: { code: "execution_cancelled", message }, latencyMs };
}
