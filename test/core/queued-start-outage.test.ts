import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { ServiceError } from "../../src/core/errors.js";
import type { ExecutionStore, Store } from "../../src/core/ports.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { capturedLog } from "../support/captured-log.js";
import { makeCore } from "./make-core.js";
import { echo } from "./test-skills.js";

/** The store, except that starting a queued execution throws `failure.error` while it is set. */
function failingStarts(failure: { error?: unknown; attempts: number }) {
  return (store: Store): Store => {
    const { executions } = store;
    const start: ExecutionStore["start"] = async (running) => {
      failure.attempts++;
      if (failure.error !== undefined) throw failure.error;
      return executions.start(running);
    };
    return { ...store, executions: Object.assign(Object.create(executions) as ExecutionStore, { start }) };
  };
}

describe("a queued execution whose start the store refuses", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const setUp = async () => {
    const failure: { error?: unknown; attempts: number } = {
      // What SQLite throws when the disk fails under it: an outage.
      error: new Database.SqliteError("disk I/O error", "SQLITE_IOERR"),
      attempts: 0,
    };
    const log = capturedLog();
    const core = await makeCore([echo], {
      // On SQLite: its store's isOutage recognises the error (the in-memory store never has one).
      store: "sqlite",
      wrapStore: failingStarts(failure),
      logger: log.logger,
      clock: systemClock,
      heartbeatMs: 100,
      maxConcurrentPerKey: 1,
    });
    cleanups.push(core.cleanup);
    const key = await core.keyFor();
    return { core, failure, log, key };
  };

  it("an async execution whose start meets a store outage still runs once the store is back", async () => {
    const { core, failure, log, key } = await setUp();
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { async: true });
    await vi.waitFor(() => expect(failure.attempts).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    expect((await core.skillport.queries.get(key, record.id)).status).toBe("queued");
    // Said as what it is, an outage met while starting, not as an outcome lost.
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: "could not start a queued execution; trying again in a beat",
        execution_id: record.id,
        err: expect.objectContaining({ code: "SQLITE_IOERR" }),
      }),
    );
    expect(log.lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    failure.error = undefined;
    const ended = await core.skillport.queries.get(key, record.id, 5_000);
    expect(ended).toMatchObject({ status: "completed", result: { text: "hi" } });
  });

  it("is cancelled at once by a cancel while it waits to start again", async () => {
    const { core, failure, log, key } = await setUp();
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { async: true });
    // Its start refused, it waits a beat to be queued again.
    await vi.waitFor(() => expect(log.lines).toHaveLength(1), { timeout: 5_000 });
    const cancelled = await core.skillport.queries.cancel(key, record.id);
    expect(cancelled).toMatchObject({ status: "cancelled", started_at: null });
    expect(core.skillport.load().executions.held).toBe(0);
    failure.error = undefined;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await core.skillport.queries.get(key, record.id)).status).toBe("cancelled");
  });

  // Left open in session 24: the cancel's 503 said the execution "ran and ended cancelled",
  // and its record, once stored, had the start the store had refused.
  it("a cancel that lands while its start fails, with the store down, is told the cancellation is not recorded yet, not that it ran", async () => {
    const outage = new Database.SqliteError("disk I/O error", "SQLITE_IOERR");
    let startCalled = () => {};
    const startTried = new Promise<void>((resolve) => {
      startCalled = resolve;
    });
    let failStart = (_error: unknown) => {};
    let savesFail = false;
    const core = await makeCore([echo], {
      // On SQLite: its store's isOutage recognises the error (the in-memory store never has one).
      store: "sqlite",
      clock: systemClock,
      heartbeatMs: 100,
      wrapStore: (store) => {
        const { executions } = store;
        const overrides: Partial<ExecutionStore> = {
          // The start hangs until the test fails it, so that the cancel lands meanwhile.
          start: () => {
            startCalled();
            return new Promise<boolean>((_resolve, reject) => {
              failStart = reject;
            });
          },
          save: (execution) => (savesFail ? Promise.reject(outage) : executions.save(execution)),
        };
        return {
          ...store,
          executions: Object.assign(Object.create(executions) as ExecutionStore, overrides),
        };
      },
    });
    cleanups.push(core.cleanup);
    const key = await core.keyFor();
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { async: true });
    await startTried;

    savesFail = true;
    const cancel = core.skillport.queries.cancel(key, record.id);
    // The cancel has reached the run (its record read) before the start fails.
    await new Promise((resolve) => setTimeout(resolve, 50));
    failStart(outage);
    const refused = await cancel.then(
      () => expect.unreachable("the cancel was recorded with every save failing"),
      (err: unknown) => err as ServiceError,
    );
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503, retryAfterSeconds: 5 });
    expect(refused.message).toBe(
      `The execution ${record.id} was cancelled before it started, but the store is unavailable and could not record the cancellation yet: ` +
        `repeat the cancel after Retry-After, unless GET /v1/executions/${record.id} shows it cancelled by then ` +
        "(this process records it as soon as the store is back, unless it stops first).",
    );
    expect(refused.message).not.toContain("ran");

    // Recorded once the store takes saves again: cancelled, with no start.
    savesFail = false;
    await vi.waitFor(
      async () =>
        expect(await core.skillport.queries.get(key, record.id)).toMatchObject({
          status: "cancelled",
          started_at: null,
          latency_ms: null,
        }),
      { timeout: 5_000 },
    );
  });

  it("keeps its key's concurrency hold while it waits to start, and a stop leaves it queued, the hold freed", async () => {
    const { core, failure, key } = await setUp();
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { async: true });
    await vi.waitFor(() => expect(failure.attempts).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    // The key's one slot is still held by the waiting execution.
    await expect(core.run(key, "test.echo", { text: "more" })).rejects.toMatchObject({
      code: "concurrency_limit_exceeded",
    });
    await core.skillport.stop(1_000);
    expect(core.skillport.load().executions.held).toBe(0);
    expect(core.skillport.runner.load.queued).toBe(0);
    // Queued in the store for the next process to run.
    expect((await core.skillport.store.executions.get(record.id))?.record.status).toBe("queued");
    const attempts = failure.attempts;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(failure.attempts).toBe(attempts);
  });
});
