import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { sleep } from "../core/test-skills.js";
import { bothBackends } from "./both-backends.js";

const WAIT_MS = 400;

// Regression (audit 23, new user #10): `mcp --remote` answered execute_skill at `wait_ms`
// with the running record the stream sent first, its latency_ms that of the start (2 ms
// after a 500 ms wait), where embedded mode answers the time run so far.
describe("a still-running execution answered at the end of its wait", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("carries the time run so far in --remote as in embedded mode, for execute and get_execution", async () => {
    // The real clock: the run's time so far is what is measured.
    const { embedded, remote } = await bothBackends([sleep], cleanups, { clock: systemClock });
    const backends: [string, SkillportBackend][] = [
      ["embedded", embedded],
      ["remote", await remote()],
    ];
    for (const [mode, backend] of backends) {
      const signal = new AbortController().signal;
      const started = await backend.execute({
        request: { skill_id: "test.sleep", params: { ms: 3_000 }, timeout_ms: 30_000 },
        waitMs: WAIT_MS,
        signal,
      });
      expect(started.status, mode).toBe("running");
      expect(started.latency_ms, mode).toBeGreaterThanOrEqual(WAIT_MS - 50);
      const polled = await backend.getExecution({ id: started.id, waitMs: WAIT_MS, signal });
      expect(polled.status, mode).toBe("running");
      expect(polled.latency_ms, mode).toBeGreaterThanOrEqual((started.latency_ms ?? 0) + WAIT_MS - 50);
      await backend.cancelExecution(started.id);
    }
  });
});
