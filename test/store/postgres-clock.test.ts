import { afterEach, describe, expect, it } from "vitest";
import { StoreClock } from "../../src/core/execution/store-clock.js";
import type { Logger } from "../../src/core/logger.js";
import { scaleOutServices, skipWithoutServices } from "../support/scale-out-services.js";
import { makePostgresStore } from "./support/postgres-store.js";

// Replicas on several hosts write and judge heartbeats by PostgreSQL's
// clock, and a replica whose own clock is off says so.
describe("postgresql: the shared clock", () => {
  const services = scaleOutServices();
  if (!services) {
    skipWithoutServices("the shared clock");
    return;
  }
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it("is PostgreSQL's, which a replica whose clock runs 120 s fast follows, saying so in a warning", async () => {
    const { store, cleanup } = await makePostgresStore(services);
    cleanups.push(cleanup);
    expect(await store.executions.sharedClockMs()).toBeTypeOf("number");
    const warnings: string[] = [];
    const logger = { warn: (_: object, msg: string) => void warnings.push(msg) } as unknown as Logger;
    const clock = new StoreClock({ now: () => Date.now() + 120_000 }, store.executions, logger);
    await clock.sync();
    // This machine's clock is PostgreSQL's here (the same host): the fast one is moved back onto it.
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1_000);
    expect(warnings).toEqual([expect.stringMatching(/clock is 120 s ahead of the store's:/)]);
    // And a heartbeat stamped by it is stored (whole milliseconds, PostgreSQL's bigint).
    await store.executions.heartbeat({ id: "runner_skewed", host: "h", pid: 1, heartbeatAt: clock.now() });
  });
});
