import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import type { Store } from "../../src/core/ports.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { type Core, makeCore } from "./make-core.js";

// The end of a store outage was once logged nowhere (Redis has "Redis is
// back"), and /metrics had no gauge of it; both follow the heartbeat, which runs without traffic.
describe("the end of a store outage", () => {
  let core: Core | undefined;
  afterEach(async () => {
    await core?.cleanup();
    core = undefined;
  });

  it("is logged once, with how long it lasted and what it cost, and the store counts down meanwhile", async () => {
    const outage = new Error("connect ECONNREFUSED 127.0.0.1:5432");
    let down = false;
    const lines: Record<string, unknown>[] = [];
    const logger = capturingLogger(lines);
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    // A store whose heartbeats fail while `down`, as PostgreSQL's do while it is stopped.
    const wrapStore = (store: Store): Store => {
      const executions = Object.create(store.executions) as Store["executions"];
      executions.heartbeat = (runner) => (down ? Promise.reject(outage) : store.executions.heartbeat(runner));
      return { ...store, executions, isOutage: (err) => err === outage || store.isOutage(err) };
    };
    core = await makeCore([], { logger, clock, heartbeatMs: 20, wrapStore });
    const { skillport } = core;
    expect(skillport.load().store).toBe("ok");

    down = true;
    // Two requests answered service_unavailable, then a failed beat.
    skillport.errorOf(outage);
    skillport.errorOf(outage);
    await expect.poll(() => lines.some((line) => line.msg === "runner heartbeat failed")).toBe(true);
    expect(skillport.load().store).toBe("down");
    // Later failed beats are logged at debug: one error line says what happened.
    await expect.poll(() => lines.some((line) => line.msg === "runner heartbeat failed again")).toBe(true);
    const heartbeatErrors = () =>
      lines.filter((line) => line.level === "error" && String(line.msg).startsWith("runner heartbeat"))
        .length;
    expect(heartbeatErrors()).toBe(1);

    clock.advance(15_000);
    down = false;
    await expect.poll(() => skillport.load().store).toBe("ok");
    const back = lines.filter((line) => String(line.msg).startsWith("the store is back"));
    expect(back).toEqual([
      {
        level: "info",
        unavailable_ms: 15_000,
        answered_service_unavailable: 2,
        msg: "the store is back: it was unavailable for 15 s, and 2 requests were answered service_unavailable meanwhile",
      },
    ]);
    // Said once: the beats after it find nothing to end.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.filter((line) => String(line.msg).startsWith("the store is back"))).toHaveLength(1);

    // The next outage is told at error again.
    down = true;
    await expect.poll(heartbeatErrors).toBe(2);
  });
});
