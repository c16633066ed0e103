import { afterEach, describe, expect, it } from "vitest";
import type { ExecutionEvent } from "../../src/core/execution/events.js";
import type { ProgressUpdate } from "../../src/core/skills/skill.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { makeCore } from "./make-core.js";
import { oddProgress, TOLD_PROGRESS } from "./odd-progress-skill.js";

// A skill's ctx.progress took whatever it was given: NaN, Infinity or a string went out in
// SSE events (as null, or as a string) and in MCP notifications/progress, whose progress and
// total are numbers. Now the core tells only updates with a finite progress, leaves out a
// total that is not one, and logs the first such update of an execution.
describe("a skill's progress values that are not finite numbers", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const coreWithLog = async () => {
    const lines: Record<string, unknown>[] = [];
    const core = await makeCore([oddProgress], { logger: capturingLogger(lines) });
    cleanups.push(() => core.cleanup());
    return { core, lines, key: await core.keyFor() };
  };

  it("are not told to the run's caller or its followers; a bad total is left out; the rest are told", async () => {
    const { core, key } = await coreWithLog();
    const heard: ProgressUpdate[] = [];
    const { record } = await core.skillport.executions.execute(
      key,
      { skill_id: "test.odd_progress", params: {}, async: false, timeout_ms: 30_000 },
      { onProgress: (update) => heard.push(update) },
    );
    expect(record.status).toBe("completed");
    expect(heard).toEqual(TOLD_PROGRESS);

    const async = await core.run(key, "test.odd_progress", { delay_ms: 200 }, { async: true });
    const followed: ExecutionEvent[] = [];
    for await (const event of core.skillport.queries.subscribe(key, async.record.id)) {
      if (event.type === "progress") followed.push(event);
    }
    expect(followed).toEqual(
      TOLD_PROGRESS.map((update) => ({ type: "progress", execution_id: async.record.id, ...update })),
    );
  });

  it("are logged once per execution, naming what was wrong but not the value", async () => {
    const { core, key, lines } = await coreWithLog();
    const first = await core.run(key, "test.odd_progress", {});
    const second = await core.run(key, "test.odd_progress", {});
    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({
        execution_id: first.record.id,
        skill_id: "test.odd_progress",
        problem: "its progress is NaN, not a finite number",
        msg: expect.stringMatching(/^a progress update of the skill was ignored/),
      }),
      expect.objectContaining({
        execution_id: second.record.id,
        problem: "its progress is NaN, not a finite number",
      }),
    ]);
  });
});
