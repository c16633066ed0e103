import type { Skill, SkillContext } from "../skills/skill.js";

/**
 * Where a skill's `run` executes: the port between the core, which owns timeouts,
 * cancellation and outcomes (see `runSkill`), and whatever isolates skills (a pool of
 * worker threads in `src/isolation/`). It settles as `run` would: with the skill's
 * output, or rejecting with its error (a `SkillError` is shown to the caller).
 */
export interface SkillExecutor {
  /**
   * Runs the skill. `started` is called once its run begins: at once, or, for a run that
   * waits for a worker thread, when it has one. A run whose signal fires while it waits
   * never calls it, and its record says it never started.
   */
  invoke(
    skill: Skill,
    params: Record<string, unknown>,
    ctx: SkillContext,
    started?: () => void,
  ): Promise<unknown>;
  /** Whether `skill` runs off the main thread (it then warms up there, not here). */
  isolates(skill: Skill): boolean;
  /** Work waiting for and held by the executor, for `/metrics` and `/readyz`. */
  readonly load: ExecutorLoad;
  /** Stops its threads; executions still in it end as their signals decide. */
  close(): Promise<void>;
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
  invoke: (skill, params, ctx, started) => {
    started?.();
    return skill.run(params, ctx);
  },
  isolates: () => false,
  load: { threads: 0, queued: 0 },
  async close() {},
};
