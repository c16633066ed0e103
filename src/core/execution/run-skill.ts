import type { ExecutionErrorCode } from "../errors.js";
import type { Logger } from "../logger.js";
import { type Skill, type SkillContext, SkillError } from "../skills/skill.js";
import { checkResult } from "./checked-result.js";
import type { LazyAbortController } from "./lazy-abort-controller.js";
import { preemptedMessage } from "./preemption.js";
import { MAX_RESULT_BYTES, notJsonMessage, type ResultFault, resultFault } from "./result-size.js";
import type { InvokeHooks, SkillExecutor } from "./skill-executor.js";

/**
 * Why an execution's signal fired; the reason decides its terminal status. `reclaimed`: its
 * worker thread or async slot was wanted for another owner's run (`LazyAbortController.preempt`).
 */
export type AbortReason = "timeout" | "cancel" | "shutdown" | "reclaimed";

export interface RunOutcome {
  status: "completed" | "failed" | "timed_out" | "cancelled";
  result: Record<string, unknown> | null;
  error: { code: ExecutionErrorCode; message: string } | null;
  /** Time spent running the skill: from when it began (after any wait for a worker thread). */
  latencyMs: number;
  /**
   * The skill never began: it waited for a worker thread until its signal fired, or it was
   * cancelled while queued (`cancelledBeforeStart`). Its record then has neither `started_at`
   * nor `latency_ms` (contract: null until it started), so that it does not look like a run
   * of the skill as long as its timeout, nor like one that started.
   */
  neverStarted?: boolean;
}

export interface RunOptions {
  timeoutMs: number;
  /** Aborted with an `AbortReason` by whoever cancels, shuts down or preempts the run. */
  controller: LazyAbortController;
  /** Its signal must be `controller`'s. */
  context: SkillContext;
  logger: Logger;
  /** Where `run` executes: on this thread or isolated in a worker. */
  executor: SkillExecutor;
  /** Told as the run goes to wait for a worker thread, and as its skill begins (see `AsyncSlot`). */
  hooks?: Pick<InvokeHooks, "waitingForThread" | "started">;
}

/**
 * Runs one skill under its timeout. The skill's signal fires on timeout, cancellation,
 * shutdown or preemption; the outcome does not wait for a skill that ignores its signal.
 * Never throws: every failure becomes an outcome, so no execution is left without a
 * terminal status.
 */
export async function runSkill(
  skill: Skill,
  params: Record<string, unknown>,
  options: RunOptions,
): Promise<RunOutcome> {
  const { controller, timeoutMs, logger } = options;
  const calledMs = performance.now();
  const timer = setTimeout(() => controller.abort("timeout"), timeoutMs);
  /** When the skill began (after any wait for a worker thread); unset until then. */
  let startedMs: number | undefined;
  // Contract: latency_ms is the time spent running the skill, so a wait for a thread is no part of it.
  const elapsed = () => Math.round((performance.now() - (startedMs ?? calledMs)) * 1000) / 1000;
  const hooks: InvokeHooks = {
    waitingForThread: options.hooks?.waitingForThread,
    started: () => {
      if (startedMs !== undefined) return;
      startedMs = performance.now();
      options.hooks?.started?.();
    },
    preempted: (reclaim) => controller.preempt({ ...reclaim, slot: "thread" }),
    deadlineMs: calledMs + timeoutMs,
  };
  let detachAbort = () => {};
  /** Whether the skill's run settled (answered or threw), whenever it did. */
  let settled = false;
  try {
    const aborted = new Promise<never>((_, reject) => {
      detachAbort = controller.onAbort(reject);
    });
    const running = Promise.resolve().then(() =>
      options.executor.invoke(skill, params, options.context, hooks),
    );
    // A skill that ignores its signal may settle later; its outcome is no longer wanted.
    running.then(
      () => (settled = true),
      () => (settled = true),
    );
    const output = await Promise.race([running, aborted]);
    // Before the schema walks it, and before anything serializes it.
    const rawFault = resultFault(output, MAX_RESULT_BYTES);
    if (rawFault) return faultOutcome(rawFault, skill, logger, elapsed());
    const checked = checkResult(skill.result, output);
    if (!checked.success) {
      logger.error({ issues: checked.issues }, "skill returned a result that does not match its schema");
      return failedOutcome(
        "execution_failed",
        `The skill ${skill.id} returned an invalid result.`,
        elapsed(),
      );
    }
    // The schema may have transformed the output: what is recorded must be JSON too.
    const checkedFault =
      checked.result === output ? undefined : resultFault(checked.result, MAX_RESULT_BYTES);
    if (checkedFault) return faultOutcome(checkedFault, skill, logger, elapsed());
    return { status: "completed", result: checked.result, error: null, latencyMs: elapsed() };
  } catch (err) {
    const waitedMs = startedMs === undefined ? undefined : startedMs - calledMs;
    return outcomeOfError(err, skill, options, elapsed(), waitedMs);
  } finally {
    clearTimeout(timer);
    detachAbort();
    if (!settled && controller.reason !== undefined)
      watchOutlivingRun(skill, controller.reason, logger, () => settled);
  }
}

/**
 * How long a run may go on after its signal fired before it is said to ignore it. A worker
 * thread is terminated within its grace (500 ms) and settles then; a skill on the main
 * thread (`lightAsyncIo`, a light call) cannot be stopped, only abandoned.
 */
export const OUTLIVED_SIGNAL_MS = 2_000;

/**
 * Warns, naming the skill, when a run whose execution already ended (timed out, cancelled,
 * interrupted) is still running `OUTLIVED_SIGNAL_MS` later: its side effects
 * land after the caller was told it ended, and nobody learnt that it ignores `ctx.signal`.
 */
function watchOutlivingRun(
  skill: Skill,
  reason: AbortReason,
  logger: Logger,
  isSettled: () => boolean,
): void {
  const check = setTimeout(() => {
    if (isSettled()) return;
    logger.warn(
      { abort_reason: reason, outlived_ms: OUTLIVED_SIGNAL_MS },
      `skill ${skill.id} is still running ${OUTLIVED_SIGNAL_MS} ms after its execution ended (${reason}): ` +
        "it does not stop when ctx.signal fires, so its work and side effects go on after the caller was told it ended",
    );
  }, OUTLIVED_SIGNAL_MS);
  check.unref();
}

/** The failed outcome of a result too large or not JSON; the latter is logged for the skill's author. */
function faultOutcome(fault: ResultFault, skill: Skill, logger: Logger, latencyMs: number): RunOutcome {
  if (fault.kind === "too_large") {
    return failedOutcome(
      "execution_failed",
      `The skill ${skill.id} produced a result larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB; ask for less (filter, select or page the data).`,
      latencyMs,
    );
  }
  logger.error({ path: fault.path, found: fault.found }, "skill returned a value JSON cannot carry");
  return failedOutcome("execution_failed", notJsonMessage(skill.id, fault), latencyMs);
}

function outcomeOfError(
  err: unknown,
  skill: Skill,
  { timeoutMs, logger, controller }: RunOptions,
  latencyMs: number,
  waitedMs: number | undefined,
): RunOutcome {
  const { reason, preemption } = controller;
  if (reason !== undefined) {
    if (waitedMs === undefined) return neverStartedOutcome(reason, timeoutMs);
    // Preempted (`reclaimed`): the one place such a run gets its outcome, whichever slot was taken.
    if (preemption) return failedOutcome("execution_interrupted", preemptedMessage(preemption), latencyMs);
    switch (reason) {
      case "timeout":
        return {
          status: "timed_out",
          result: null,
          error: { code: "execution_timeout", message: timeoutMessage(timeoutMs, waitedMs) },
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
  // An unexpected exception is a bug in the skill: log it (the run's logger masks credentials,
  // `maskingLogger`), show the caller no internals.
  logger.error({ err }, "skill threw an unexpected error");
  return failedOutcome("execution_failed", `The skill ${skill.id} failed unexpectedly.`, latencyMs);
}

/**
 * The outcome of a run whose signal fired while it waited for a worker thread (every one
 * busy): the words tell it from a slow skill (a starved run
 * looked like a 30 s run of `text.stats`). A reclaim (`reclaimed`) stops only runs that
 * started: one still waiting for a thread gives its slot up instead (see `AsyncSlot`).
 */
function neverStartedOutcome(abortReason: AbortReason, timeoutMs: number): RunOutcome {
  const outcome =
    abortReason === "timeout"
      ? {
          status: "timed_out" as const,
          result: null,
          error: {
            code: "execution_timeout" as const,
            message:
              `The execution never started: it waited its whole timeout of ${timeoutMs} ms for a worker thread, ` +
              "every one busy with other runs. Retry later, or with a longer timeout_ms.",
          },
          latencyMs: 0,
        }
      : abortReason === "shutdown"
        ? failedOutcome(
            "execution_interrupted",
            "The service shut down before the execution started (it was waiting for a worker thread).",
            0,
          )
        : cancelledOutcome(
            "The execution was cancelled before it started (it was waiting for a worker thread).",
            0,
          );
  return { ...outcome, neverStarted: true };
}

/** A timeout's words; a run that waited long for its thread says how long, of its timeout. */
function timeoutMessage(timeoutMs: number, waitedMs: number): string {
  const base = `The execution exceeded its timeout of ${timeoutMs} ms.`;
  if (waitedMs < NOTABLE_WAIT_MS) return base;
  return `${base} It waited ${Math.round(waitedMs)} ms of it for a worker thread before it started.`;
}

/** A wait for a thread shorter than this is not worth a word (a hop to a thread takes a few ms). */
const NOTABLE_WAIT_MS = 1_000;

/** A `failed` outcome; the one constructor for every failure, whoever decides it. */
export function failedOutcome(code: ExecutionErrorCode, message: string, latencyMs: number): RunOutcome {
  return { status: "failed", result: null, error: { code, message }, latencyMs };
}

/** A `cancelled` outcome, whether the execution was running or still queued. */
export function cancelledOutcome(message: string, latencyMs: number): RunOutcome {
  return { status: "cancelled", result: null, error: { code: "execution_cancelled", message }, latencyMs };
}

/**
 * The outcome of a queued execution this runner held, cancelled before its run began (its
 * start may even have been tried, and refused by the store): it has no start.
 */
export function cancelledBeforeStart(): RunOutcome {
  return { ...cancelledOutcome("The execution was cancelled before it started.", 0), neverStarted: true };
}
