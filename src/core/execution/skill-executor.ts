import type { Reclaim } from "../fair-slots.js";
import type { Skill, SkillContext } from "../skills/skill.js";

/**
 * Where a skill's `run` executes: the port between the core, which owns timeouts,
 * cancellation and outcomes (see `runSkill`), and whatever isolates skills (a pool of
 * worker threads in `src/isolation/`). It settles as `run` would: with the skill's
 * output, or rejecting with its error (a `SkillError` is shown to the caller).
 */
export interface SkillExecutor {
  /** Runs the skill, telling `hooks` where its run stands. */
  invoke(
    skill: Skill,
    params: Record<string, unknown>,
    ctx: SkillContext,
    hooks?: InvokeHooks,
  ): Promise<unknown>;
  /** Whether `skill` runs off the main thread (it then warms up there, not here). */
  isolates(skill: Skill): boolean;
  /** Work waiting for and held by the executor, for `/metrics` and `/readyz`. */
  readonly load: ExecutorLoad;
  /** Stops its threads; executions still in it end as their signals decide. */
  close(): Promise<void>;
}

/** What a run tells its caller as it goes (see `SkillExecutor.invoke`), and its deadline. */
export interface InvokeHooks {
  /**
   * Called when the run has to wait for a worker thread (none is free for it now), before
   * `started`; never for a run that gets one at once or needs none. Its record then says it
   * has not started (contract: `started_at` and `latency_ms` are when and how long the
   * skill ran).
   */
  waitingForThread?: () => void;
  /**
   * Called once the skill begins: at once, or, for a run that waits for a worker thread,
   * when it has one. A run whose signal fires while it waits never calls it, and its record
   * says it never started.
   */
  started?: () => void;
  /**
   * Called when the run's worker thread is taken back for another owner's run (see
   * `FairSlots`): the caller stops the run as a timeout would (its signal fires, with the
   * reason `reclaimed`), and it ends preempted. A run without it keeps its thread.
   */
  preempted?: (reclaim: Reclaim) => void;
  /**
   * When the run's timeout fires (`performance.now()`): an executor whose runs wait for a
   * thread weighs with it whether taking one back from another run is of any use (see
   * `FairSlots`).
   */
  deadlineMs?: number;
}

export interface ExecutorLoad {
  /** Worker threads alive (0 when skills run on the main thread). */
  threads: number;
  /** Skill runs waiting for a free worker. */
  queued: number;
}

/** Whether a skill must run isolated from the main thread (contract of `lightAsyncIo`). */
export function runsIsolated(skill: Skill): boolean {
  return skill.annotations.lightAsyncIo !== true;
}

/**
 * Whether one call of an isolated skill may run on the main thread all the same: the
 * skill says the call is light. A failing judgement counts as "no".
 */
export function isLightCall(skill: Skill, params: Record<string, unknown>): boolean {
  if (!skill.isLightCall) return false;
  try {
    return skill.isLightCall(params);
  } catch {
    return false;
  }
}

/** Runs every skill on the calling thread: for tests and for skills declared light. */
export const inlineExecutor: SkillExecutor = {
  invoke: (skill, params, ctx, hooks) => {
    hooks?.started?.();
    return skill.run(params, ctx);
  },
  isolates: () => false,
  load: { threads: 0, queued: 0 },
  async close() {},
};
