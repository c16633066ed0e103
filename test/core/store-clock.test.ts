import { afterEach, describe, expect, it } from "vitest";
import { type Clock, ManualClock, systemClock } from "../../src/core/clock.js";
import { ExecutionEvents } from "../../src/core/execution/events.js";
import { ExecutionRunner } from "../../src/core/execution/execution-runner.js";
import { inlineExecutor } from "../../src/core/execution/skill-executor.js";
import { SKEW_WARN_MS, StoreClock } from "../../src/core/execution/store-clock.js";
import { ConcurrencyGate } from "../../src/core/limits/concurrency-gate.js";
import { silentLogger } from "../../src/core/logger.js";
import { SkillRegistry } from "../../src/core/skills/registry.js";
import { MemoryData, openMemoryStore } from "../../src/store/memory/index.js";
import { makeExecution } from "../store/contract/fixtures.js";
import { capturingLogger } from "../support/capturing-logger.js";

const HEARTBEAT_MS = 20; // gone after six silent beats: 120 ms
const SKEW_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Audit 26, finding 1: heartbeats followed each replica's own clock, so a replica whose
// clock ran fast took a healthy peer on another host for gone and interrupted its runs.
describe("liveness across hosts whose clocks disagree", () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  /**
   * A store whose clock is the real one (as PostgreSQL's), a peer on another host beating
   * by it, holding a running execution, and this process's runner with its clock `skewMs`
   * off.
   */
  const setUp = async (skewMs: number) => {
    const store = openMemoryStore({ data: new MemoryData({ sharedClock: systemClock }) });
    const peer = { id: "runner_peer", host: "otherhost (boot x)", pid: 4242 };
    const beatPeer = () => store.executions.heartbeat({ ...peer, heartbeatAt: Date.now() });
    await beatPeer();
    const peerBeats = setInterval(() => void beatPeer(), HEARTBEAT_MS);
    const held = makeExecution({ status: "running", runnerId: peer.id });
    await store.executions.save(held);
    const skewed: Clock = { now: () => Date.now() + skewMs };
    const runner = new ExecutionRunner({
      registry: new SkillRegistry(),
      store,
      clock: skewed,
      logger: silentLogger,
      events: new ExecutionEvents(),
      asyncConcurrency: 1,
      skillConfig: {},
      heartbeatMs: HEARTBEAT_MS,
      executor: inlineExecutor,
      concurrency: new ConcurrencyGate({ perKey: 8, total: 8 }),
    });
    await runner.start();
    stops.push(async () => {
      clearInterval(peerBeats);
      await runner.stop(0);
      await store.close();
    });
    return { store, held, stopPeer: () => clearInterval(peerBeats) };
  };

  for (const skewMs of [SKEW_MS, -SKEW_MS]) {
    it(`a runner whose clock is ${skewMs / 1000} s off leaves a live peer's executions alone, and takes over once the peer stops`, async () => {
      const { store, held, stopPeer } = await setUp(skewMs);
      // Several orphan scans (every six beats), each long past six beats of watching.
      await sleep(HEARTBEAT_MS * 30);
      const during = await store.executions.get(held.record.id);
      expect(during?.runnerId).toBe("runner_peer");
      expect(during?.record.status).toBe("running");
      stopPeer();
      await expect
        .poll(async () => (await store.executions.get(held.record.id))?.record.status, { timeout: 3_000 })
        .toBe("failed");
    });
  }
});

describe("StoreClock", () => {
  it("follows the store's clock and logs a skew once as it starts, and once as it ends", async () => {
    const local = new ManualClock(1_000_000);
    let storeMs: number | undefined = 1_000_000 - 30_000;
    const lines: Record<string, unknown>[] = [];
    const clock = new StoreClock(local, { sharedClockMs: async () => storeMs }, capturingLogger(lines));
    await clock.sync();
    expect(clock.now()).toBe(1_000_000 - 30_000);
    await clock.sync();
    expect(lines).toEqual([{ level: "warn", clock_skew_ms: 30_000, msg: expect.any(String) }]);
    expect(lines[0]?.msg).toMatch(/clock is 30 s ahead of the store's: rate-limit windows.*NTP/);
    storeMs = 1_000_000 - SKEW_WARN_MS / 2;
    await clock.sync();
    await clock.sync();
    expect(lines.map((line) => line.level)).toEqual(["warn", "info"]);
    expect(clock.now()).toBe(1_000_000 - SKEW_WARN_MS / 2);
  });

  it("reads whole milliseconds, as heartbeats are stored, when the store answered between two of this clock's", async () => {
    let ms = 10_000;
    const ticking = { now: () => ms++ }; // 10000 as sent, 10001 as answered: a midpoint of 10000.5
    const clock = new StoreClock(ticking, { sharedClockMs: async () => 20_000 }, capturingLogger([]));
    await clock.sync();
    expect(Number.isInteger(clock.now())).toBe(true);
  });

  it("says nothing when the clocks agree, and stays this process's clock for a store without one (SQLite)", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = capturingLogger(lines);
    const agreeing = new StoreClock(new ManualClock(5_000), { sharedClockMs: async () => 5_300 }, logger);
    await agreeing.sync();
    expect(agreeing.now()).toBe(5_300);
    const local = new ManualClock(5_000);
    const alone = new StoreClock(local, { sharedClockMs: async () => undefined }, logger);
    await alone.sync();
    local.advance(10);
    expect(alone.now()).toBe(5_010);
    expect(lines).toEqual([]);
  });
});
