import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { Limiter, Store } from "../../src/core/ports.js";
import { gatedThreads } from "./gated-threads.js";
import { makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

// Audit 24, code #17: `/readyz` composed the readiness rule (store reachable, not draining,
// not saturated) from four of the core's internals, and `/metrics` read the same four. The
// rule now lives in the core (`readinessOf`), read through `Skillport.readiness` and `load`.

/** The store, with `ping` and the limiter's `degraded` as the test sets them. */
function steeredStore(state: { storeUp: boolean; redisDegraded?: boolean }) {
  return (store: Store): Store => {
    const limiter = new Proxy(store.limiter, {
      get(target, property) {
        if (property === "degraded") return state.redisDegraded;
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Limiter;
    return { ...store, limiter, ping: async () => state.storeUp && store.ping() };
  };
}

describe("Skillport readiness", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function coreWith(state: { storeUp: boolean; redisDegraded?: boolean }) {
    const core = await makeCore(testSkills, {
      clock: systemClock,
      maxPendingExecutions: 1,
      executor: gatedThreads(() => false).executor,
      wrapStore: steeredStore(state),
    });
    cleanup = core.cleanup;
    return core;
  }

  it("is ready with the store up and room left, and reports the load from the core's parts", async () => {
    const { skillport } = await coreWith({ storeUp: true });
    expect(await skillport.readiness()).toEqual({
      status: "ready",
      store: "ok",
      load: {
        executions: { running: 0, queued: 0, held: 0, capacity: 1 },
        workers: { threads: 1, queued: 0 },
        saturated: false,
        store: "ok",
      },
    });
  });

  it("is saturated while the process holds its capacity, even with the store down, and ready once it ends", async () => {
    const state = { storeUp: true };
    const core = await coreWith(state);
    const key = await core.keyFor();
    const { record } = await core.run(key, "test.sleep", { ms: 60_000 }, { async: true });
    await vi.waitFor(() => expect(core.skillport.load().executions.running).toBe(1));
    expect(core.skillport.load()).toMatchObject({ saturated: true, executions: { held: 1, capacity: 1 } });
    expect(await core.skillport.readiness()).toMatchObject({ status: "saturated", store: "ok" });
    state.storeUp = false;
    expect(await core.skillport.readiness()).toMatchObject({ status: "saturated", store: "down" });
    state.storeUp = true;
    await core.skillport.queries.cancel(key, record.id);
    await vi.waitFor(async () => expect((await core.skillport.readiness()).status).toBe("ready"));
  });

  it("is unavailable while the store cannot serve", async () => {
    const state = { storeUp: true };
    const { skillport } = await coreWith(state);
    state.storeUp = false;
    expect(await skillport.readiness()).toMatchObject({ status: "unavailable", store: "down" });
  });

  it("is unavailable from the moment the core is told to stop", async () => {
    const { skillport } = await coreWith({ storeUp: true });
    const stopped = skillport.stop(1000);
    expect(await skillport.readiness()).toMatchObject({ status: "unavailable", store: "ok" });
    await stopped;
  });

  it("stays ready with Redis down, and says so", async () => {
    const state = { storeUp: true, redisDegraded: false };
    const { skillport } = await coreWith(state);
    expect((await skillport.readiness()).load.redis).toBe("ok");
    state.redisDegraded = true;
    expect(await skillport.readiness()).toMatchObject({ status: "ready", load: { redis: "down" } });
  });
});
