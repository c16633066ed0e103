import type { SkillExecutor } from "../../src/core/execution/skill-executor.js";
import type { Skill } from "../../src/core/skills/skill.js";

/**
 * An executor whose isolated runs wait "for a worker thread" at a gate: each tells
 * `waitingForThread`, and gets its thread only when the test calls `open` (or its signal
 * fires first); `started` is told once past the gate. `isolated` picks the skills that
 * wait (default: all); the others run at once on this thread. `runs` counts the runs
 * begun, by execution id.
 */
export function gatedThreads(isolated: (skill: Skill) => boolean = () => true): {
  executor: SkillExecutor;
  open: () => void;
  runs: Map<string, number>;
} {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const runs = new Map<string, number>();
  const executor: SkillExecutor = {
    async invoke(skill, params, ctx, hooks) {
      if (isolated(skill)) {
        hooks?.waitingForThread?.();
        await new Promise<void>((resolve, reject) => {
          if (ctx.signal.aborted) return reject(ctx.signal.reason);
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          void gate.then(resolve);
        });
      }
      hooks?.started?.();
      runs.set(ctx.executionId, (runs.get(ctx.executionId) ?? 0) + 1);
      return skill.run(params, ctx);
    },
    isolates: isolated,
    load: { threads: 1, queued: 0 },
    async close() {},
  };
  return { executor, open, runs };
}
