import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { makeCore } from "./make-core.js";
import { latch, latchReleases } from "./test-skills.js";

// contract.md: a running execution's latency_ms is the time it has run so far. Every
// reader hears the same (`ExecutionQueries.asShown`), whichever way it reads the record.
describe("a running execution's record, wherever it is read", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const release of latchReleases.values()) release();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("shows the time it has run so far on the dashboard and in a replay of the running record, as REST and MCP do", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 30));
    const core = await makeCore([latch], { clock });
    cleanups.push(core.cleanup);
    const key = await core.keyFor();
    const request = { skill_id: "test.latch", params: { label: "shown" }, async: true, timeout_ms: 30_000 };
    const { record } = await core.skillport.executions.execute(key, request, { idempotencyKey: "shown-1" });
    await vi.waitFor(() => expect(latchReleases.has("shown")).toBe(true), { timeout: 5_000 });
    clock.advance(1_500);
    const { queries, executions } = core.skillport;
    // What REST and MCP answer.
    expect(await queries.get(key, record.id)).toMatchObject({ status: "running", latency_ms: 1_500 });
    const listed = (await queries.listAll({ limit: 10 })).data.find((row) => row.record.id === record.id);
    expect(listed?.record).toMatchObject({ status: "running", latency_ms: 1_500 });
    expect((await queries.getAny(record.id)).record).toMatchObject({ status: "running", latency_ms: 1_500 });
    // A repeat that follows the run (a streamed execute, an MCP call) is answered the record so far.
    const replay = await executions.execute(key, request, { idempotencyKey: "shown-1", replayRunning: true });
    expect(replay).toMatchObject({
      replayed: true,
      record: { id: record.id, status: "running", latency_ms: 1_500 },
    });
  });
});
