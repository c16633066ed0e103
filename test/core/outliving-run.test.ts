import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { OUTLIVED_SIGNAL_MS } from "../../src/core/execution/run-skill.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { type Core, makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

// Audit 26 F10: a skill on the main thread that ignores its signal went on after its record
// said timed_out, its side effects landing later, and nothing was logged.

const lines: Record<string, unknown>[] = [];
const capturing = () => capturingLogger(lines);

let core: Core;

beforeEach(async () => {
  lines.length = 0;
  core = await makeCore(testSkills, { clock: systemClock, logger: capturing() });
});
afterEach(() => core.cleanup());

describe("a run that outlives its execution", () => {
  it("is warned about, naming the skill, when it goes on past the margin; a run that stops is not", async () => {
    const key = await core.keyFor();
    const [stuck, late, cooperative] = await Promise.all([
      core.run(key, "test.stubborn", { ms: OUTLIVED_SIGNAL_MS + 1_500 }, { timeout_ms: 100 }),
      core.run(key, "test.stubborn", { ms: 400 }, { timeout_ms: 100 }),
      core.run(key, "test.sleep", { ms: 10_000 }, { timeout_ms: 100 }),
    ]);
    for (const { record } of [stuck, late, cooperative]) expect(record.status).toBe("timed_out");
    await new Promise((resolve) => setTimeout(resolve, OUTLIVED_SIGNAL_MS + 500));
    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({
        skill_id: "test.stubborn",
        execution_id: stuck.record.id,
        abort_reason: "timeout",
        msg: expect.stringMatching(
          /^skill test\.stubborn is still running 2000 ms after its execution ended \(timeout\): it does not stop when ctx\.signal fires/,
        ),
      }),
    ]);
  });
});
