import { afterEach, describe, expect, it, vi } from "vitest";
import { utilWait } from "../../skills/util-wait.js";
import { fakeContext } from "./fake-context.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("util.wait", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits the given time and answers waited_ms", async () => {
    const started = performance.now();
    expect(await runSkill(utilWait, { ms: 120 })).toEqual({ waited_ms: 120 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it("answers at once for 0 ms", async () => {
    expect(await runSkill(utilWait, { ms: 0 })).toEqual({ waited_ms: 0 });
  });

  it("reports progress every second and at the end", async () => {
    vi.useFakeTimers();
    const ctx = fakeContext();
    const done = runSkill(utilWait, { ms: 3500 }, ctx);
    await vi.advanceTimersByTimeAsync(3500);
    expect(await done).toEqual({ waited_ms: 3500 });
    expect(ctx.progressUpdates.map((update) => update.total)).toEqual([3500, 3500, 3500, 3500]);
    expect(ctx.progressUpdates.at(-1)).toEqual({ progress: 3500, total: 3500, message: "done" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("clears its timers when aborted mid-wait", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const ctx = fakeContext({ signal: controller.signal });
    const failed = runSkill(utilWait, { ms: 60_000 }, ctx).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(2500);
    controller.abort();
    expect(await failed).toBeInstanceOf(Error);
    expect(vi.getTimerCount()).toBe(0);
    expect(ctx.progressUpdates).toHaveLength(2);
  });

  it("ends promptly with a SkillError when the signal aborts", async () => {
    const controller = new AbortController();
    const ctx = fakeContext({ signal: controller.signal });
    const started = performance.now();
    setTimeout(() => controller.abort(new Error("cancelled")), 50);
    await expectSkillError(utilWait, { ms: 300_000 }, /Wait stopped after \d+ ms/, ctx);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    vi.useFakeTimers();
    await expectSkillError(
      utilWait,
      { ms: 1000 },
      /Wait stopped after 0 ms/,
      fakeContext({ signal: controller.signal }),
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses more than five minutes and non-integers", () => {
    expect(utilWait.params.safeParse({ ms: 300_001 }).success).toBe(false);
    expect(utilWait.params.safeParse({ ms: -1 }).success).toBe(false);
    expect(utilWait.params.safeParse({ ms: 1.5 }).success).toBe(false);
  });

  it("tells REST and MCP callers alike how to give a wait longer than the default timeout", () => {
    for (const text of [utilWait.description, utilWait.params.shape.ms.description]) {
      expect(text).toMatch(/timeout_ms: in POST \/v1\/execute's body, or through MCP's execute_skill/);
    }
  });
});
