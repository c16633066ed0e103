import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { ExecutionStore, Store } from "../../src/core/ports.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { makeCore } from "./make-core.js";
import { echo, latch, latchReleases } from "./test-skills.js";

// Session 25: a cancel of an execution waiting for a slot took it out of the queue and gave
// back its hold before reading the store; when that read failed (an outage) the cancel
// answered 503, and the execution was never run, recorded or tried again: queued in the
// store, and this live runner's, so that no other runner took it, until the process died.

/** What the SQLite store throws when the disk fails under it: an outage. */
const outage = new Database.SqliteError("disk I/O error", "SQLITE_IOERR");

/**
 * The store, except that reads of `down.id` fail once `down.readsLeft` more have passed
 * (the cancel finds the record, then the store goes down), until `down.id` is unset.
 */
function failingReads(down: { id?: string; readsLeft: number }) {
  return (store: Store): Store => {
    const { executions } = store;
    const get: ExecutionStore["get"] = async (id) => {
      if (id === down.id && down.readsLeft-- <= 0) throw outage;
      return executions.get(id);
    };
    return { ...store, executions: Object.assign(Object.create(executions) as ExecutionStore, { get }) };
  };
}

describe("a cancel of a waiting async execution that meets a store outage", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const release of latchReleases.values()) release();
    latchReleases.clear();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** An async echo waiting for the one slot, which a latch run holds; the cancel's reads of it armed to fail. */
  const setUp = async () => {
    const down: { id?: string; readsLeft: number } = { readsLeft: 0 };
    const core = await makeCore([echo, latch], {
      // On SQLite: its store's isOutage recognises the error (the in-memory store never has one).
      store: "sqlite",
      clock: systemClock,
      asyncConcurrency: 1,
      wrapStore: failingReads(down),
    });
    cleanups.push(core.cleanup);
    const key = await core.keyFor();
    await core.run(key, "test.latch", { label: "slot" }, { async: true });
    await vi.waitFor(() => expect(latchReleases.has("slot")).toBe(true));
    const { record } = await core.run(key, "test.echo", { text: "hi" }, { async: true });
    expect(core.skillport.runner.load.queued).toBe(1);

    // The cancel finds the record (one read), then the store is down.
    Object.assign(down, { id: record.id, readsLeft: 1 });
    const refused = await core.skillport.queries.cancel(key, record.id).then(
      () => expect.unreachable("the cancel succeeded without the store"),
      (err: unknown) => err,
    );
    expect(core.skillport.errorOf(refused)).toMatchObject({ code: "service_unavailable", status: 503 });
    return { core, key, record, storeBack: () => Object.assign(down, { id: undefined }) };
  };

  it("leaves it waiting, holding its key's slot, and it runs once the store is back", async () => {
    const { core, key, record, storeBack } = await setUp();
    // As if no cancel had come: the caller was told to repeat it.
    expect(core.skillport.runner.load.queued).toBe(1);
    expect(core.skillport.load().executions.held).toBe(2);

    storeBack();
    latchReleases.get("slot")?.();
    await vi.waitFor(
      async () =>
        expect(await core.skillport.queries.get(key, record.id)).toMatchObject({
          status: "completed",
          result: { text: "hi" },
        }),
      { timeout: 5_000 },
    );
    expect(core.skillport.load().executions.held).toBe(0);
  });

  it("is cancelled before it started by the cancel repeated once the store is back", async () => {
    const { core, key, record, storeBack } = await setUp();
    storeBack();
    const cancelled = await core.skillport.queries.cancel(key, record.id);
    expect(cancelled).toMatchObject({ status: "cancelled", started_at: null, latency_ms: null });
    expect(core.skillport.runner.load.queued).toBe(0);
    // Only the latch run holds a slot now.
    expect(core.skillport.load().executions.held).toBe(1);
  });
});
