import { afterEach, describe, expect, it, vi } from "vitest";
import { parseRateLimitField } from "../contract/harness.js";
import { latch, latchReleases } from "../core/test-skills.js";
import { inProcessApi } from "./in-process-api.js";

/** 12:00:50 UTC on a day of the tests: 10 s before a minute's window ends. */
const ADMITTED_AT = Date.UTC(2026, 10, 22, 12, 0, 50);
const unixSeconds = (ms: number) => ms / 1000;

// Audit 25 #2: the limit headers of a long answer (a sync execute, a long poll) were
// those of the moment of admission: `RateLimit` `t=` counted from then, and
// `X-RateLimit-Reset` could name a window that had ended before the response left.
describe("limit headers of an answer sent long after its request was counted", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const release of latchReleases.values()) release();
    latchReleases.clear();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    vi.useRealTimers();
  });

  async function setUp() {
    // Only Date is moved: the skill, the long poll and the server wait on real timers.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ADMITTED_AT);
    const { core, request } = await inProcessApi([latch], cleanups);
    return { request, events: core.skillport.events };
  }

  /** Moves the clock to `atMs` once the latch `label` runs, then (after `meanwhile`) lets it end. */
  async function releaseAt(label: string, atMs: number, meanwhile?: () => Promise<unknown>): Promise<void> {
    await vi.waitFor(() => expect(latchReleases.has(label)).toBe(true), { timeout: 5_000 });
    vi.setSystemTime(atMs);
    await meanwhile?.();
    latchReleases.get(label)?.();
  }

  it("count the seconds to the window's end from when the response is sent", async () => {
    const { request } = await setUp();
    const answered = request("POST", "/v1/execute", { skill_id: "test.latch", params: { label: "t" } });
    await releaseAt("t", ADMITTED_AT + 7_000);
    const res = await answered;
    expect(res.statusCode, res.body).toBe(200);
    const minuteEnd = Date.UTC(2026, 10, 22, 12, 1, 0);
    expect(res.headers["x-ratelimit-reset"]).toBe(String(unixSeconds(minuteEnd)));
    expect(res.headers["x-ratelimit-remaining"]).toBe("59");
    // Sent at 12:00:57: 3 s to the minute's end, not the 10 s there were at admission.
    expect(parseRateLimitField(String(res.headers.ratelimit)).get("minute")).toEqual({ r: 59, t: 3 });
  });

  it("describe the window that counts when the one the request counted in ended meanwhile", async () => {
    const { request, events } = await setUp();
    const answered = request("POST", "/v1/execute", { skill_id: "test.latch", params: { label: "sync" } });
    const sentAt = Date.UTC(2026, 10, 22, 12, 1, 5);
    // Another request of the key counts in the new minute while this one runs.
    await releaseAt("sync", sentAt, () => request("GET", "/v1/skills"));
    const res = await answered;
    expect(res.statusCode, res.body).toBe(200);
    const nextMinuteEnd = Date.UTC(2026, 10, 22, 12, 2, 0);
    expect(res.headers["x-ratelimit-reset"]).toBe(String(unixSeconds(nextMinuteEnd)));
    expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(unixSeconds(sentAt));
    // The key's limits as they stand: the other request counted in the new minute.
    expect(res.headers["x-ratelimit-remaining"]).toBe("59");
    const fields = parseRateLimitField(String(res.headers.ratelimit));
    expect(fields.get("minute")).toEqual({ r: 59, t: 55 });
    expect(fields.get("day")?.r).toBe(998);

    // A long poll across a minute's end likewise (its request counted at 12:01:05).
    const started = await request("POST", "/v1/execute", {
      skill_id: "test.latch",
      params: { label: "async" },
      async: true,
    });
    const { id } = started.json() as { id: string };
    const polled = request("GET", `/v1/executions/${id}?wait=10`);
    // Counted and holding before the clock moves.
    await vi.waitFor(() => expect(events.isFollowed(id)).toBe(true), { timeout: 5_000 });
    await releaseAt("async", Date.UTC(2026, 10, 22, 12, 2, 1));
    const poll = await polled;
    expect(poll.json()).toMatchObject({ id, status: "completed" });
    expect(poll.headers["x-ratelimit-reset"]).toBe(String(unixSeconds(Date.UTC(2026, 10, 22, 12, 3, 0))));
    expect(parseRateLimitField(String(poll.headers.ratelimit)).get("minute")).toEqual({ r: 60, t: 59 });
    expect(poll.headers["x-ratelimit-remaining"]).toBe("60");
  });
});
