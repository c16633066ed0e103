import { type Clock, systemClock } from "../../src/core/clock.js";
import { ExecutionEvents } from "../../src/core/execution/events.js";
import { ExecutionRunner } from "../../src/core/execution/execution-runner.js";
import { inlineExecutor } from "../../src/core/execution/skill-executor.js";
import { ConcurrencyGate } from "../../src/core/limits/concurrency-gate.js";
import { silentLogger } from "../../src/core/logger.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";

/** An ExecutionRunner without skills on the SQLite store in `dataDir`, not started yet. */
export function runnerOnStore(dataDir: string, options: { clock?: Clock; heartbeatMs?: number } = {}) {
  const clock = options.clock ?? systemClock;
  const store = openSqliteStore({ dataDir, clock });
  const runner = new ExecutionRunner({
    registry: new SkillRegistry(),
    store,
    clock,
    logger: silentLogger,
    events: new ExecutionEvents(),
    asyncConcurrency: 1,
    skillConfig: {},
    heartbeatMs: options.heartbeatMs,
    executor: inlineExecutor,
    concurrency: new ConcurrencyGate({ perKey: 8, total: 8 }),
  });
  return { store, runner };
}
