import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { ExecutionEvents, progressEvent } from "../../src/core/execution/events.js";
import { SignalBridge } from "../../src/core/execution/signal-bridge.js";
import type { Logger } from "../../src/core/logger.js";
import type { Store } from "../../src/core/ports.js";
import { MemoryData, openMemoryStore } from "../../src/store/memory/index.js";
import { capturingLogger } from "../support/capturing-logger.js";

describe("SignalBridge", () => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  /** Two processes on one data: `here` holds the execution, `there` asks to cancel it. */
  async function bridges(cancelLocal: () => Promise<undefined>, isOutage: (err: unknown) => boolean) {
    const data = new MemoryData({ signals: true });
    const hereStore = openMemoryStore({ data });
    const thereStore = openMemoryStore({ data });
    stores.push(hereStore, thereStore);
    const lines: Record<string, unknown>[] = [];
    const hereEvents = new ExecutionEvents();
    const bridge = (
      store: Store,
      runnerId: string,
      cancel: () => Promise<undefined>,
      logger: Logger,
      events = new ExecutionEvents(),
    ) =>
      new SignalBridge({
        signals: store.signals as NonNullable<Store["signals"]>,
        events,
        store: { ...store, isOutage },
        runnerId,
        cancelLocal: cancel,
        logger,
      });
    bridge(hereStore, "runner_here", cancelLocal, capturingLogger(lines), hereEvents);
    const there = bridge(thereStore, "runner_there", async () => undefined, capturingLogger([]));
    return { there, lines, hereEvents, thereSignals: thereStore.signals as NonNullable<Store["signals"]> };
  }

  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it("logs a cancel on request that met a store outage as a warning, not an error", async () => {
    const outage = new Error("connection terminated");
    const { there, lines } = await bridges(
      () => Promise.reject(outage),
      (err) => err === outage,
    );
    await there.requestCancel("exec_1");
    await until(() => lines.length > 0);
    expect(lines).toMatchObject([{ level: "warn", msg: "could not cancel an execution on request" }]);
  });

  it("logs a cancel on request that failed for another reason as an error", async () => {
    const { there, lines } = await bridges(
      () => Promise.reject(new TypeError("a bug")),
      () => false,
    );
    await there.requestCancel("exec_1");
    await until(() => lines.length > 0);
    expect(lines).toMatchObject([{ level: "error", msg: "could not cancel an execution on request" }]);
  });

  // A progress update from another process was spread into the event: a `type` member
  // made it a status event with no record, and the follower's stream threw.
  it("delivers another process's progress with the documented members only", async () => {
    const { hereEvents, thereSignals } = await bridges(
      async () => undefined,
      () => false,
    );
    const heard: unknown[] = [];
    hereEvents.subscribe("exec_1", (event) => heard.push(event));
    const update = { progress: 1, total: 2, message: "half", type: "status", token: "s3cret" };
    await thereSignals.publish({ type: "progress", executionId: "exec_1", update, from: "runner_there" });
    await until(() => heard.length > 0);
    expect(heard).toEqual([
      { type: "progress", execution_id: "exec_1", progress: 1, total: 2, message: "half" },
    ]);
  });

  // A PostgreSQL outage failed every event of every running execution: one warning each,
  // hundreds a second on a busy replica, buried the log when it was read most.
  it("warns of events it could not send at most once per ten seconds, with the count left out", async () => {
    const store = openMemoryStore();
    stores.push(store);
    const outage = new Error("connect ECONNREFUSED 127.0.0.1:5432");
    const lines: Record<string, unknown>[] = [];
    const clock = new ManualClock();
    const events = new ExecutionEvents();
    new SignalBridge({
      signals: { publish: () => Promise.reject(outage), subscribe: () => () => {} },
      events,
      store,
      runnerId: "runner_here",
      cancelLocal: async () => undefined,
      logger: capturingLogger(lines),
      clock,
    });
    const sendEvents = async (count: number) => {
      for (let i = 0; i < count; i++) {
        events.emit(`exec_${i}`, progressEvent(`exec_${i}`, { progress: i }), { share: true });
      }
      await until(() => lines.length >= count);
    };
    const warnings = () => lines.filter((line) => line.level === "warn");

    await sendEvents(50);
    expect(warnings()).toEqual([
      expect.objectContaining({
        msg: "could not signal an execution event",
        err: outage,
        repeats_not_logged: 0,
      }),
    ]);
    // Those left out are still written, at debug.
    expect(lines.filter((line) => line.level === "debug")).toHaveLength(49);

    clock.advance(10_000);
    lines.length = 0;
    await sendEvents(3);
    expect(warnings()).toEqual([expect.objectContaining({ repeats_not_logged: 49 })]);
  });
});
