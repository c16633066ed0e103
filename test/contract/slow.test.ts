import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  expectError,
  limitHeaders,
  nextUtcMidnightSeconds,
  parseRateLimitField,
  secondsLeftInMinute,
  sleep,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

// Guarantees that take a minute of real time to show, gathered in one file so that their
// waits overlap: the day window (it needs a minute boundary) and the default timeout (30 s).
describe("contract: guarantees that take a while", { timeout: 150_000 }, () => {
  let server: TestServer;
  let roomy: CreatedKey;
  let defaultTimeoutId: string;

  beforeAll(async () => {
    server = await startServer();
    roomy = await server.createRoomyKey({ name: "slow" });
    // contract.md, "POST /v1/execute": timeout_ms defaults to 30000. Started first, checked last.
    const res = await server.request("POST", "/v1/execute", {
      key: roomy.secret,
      json: { skill_id: "util.wait", params: { ms: 60_000 }, async: true },
    });
    expect(res.status, res.text).toBe(202);
    defaultTimeoutId = bodyOf<ExecutionRecord>(res).id;
  });
  afterAll(() => stopExpectingNoErrors(server));

  it("once the day is used up, headers describe the day window and Retry-After runs until UTC midnight", async (ctx) => {
    // The day window itself would end during the test: nothing to learn in these minutes.
    if (nextUtcMidnightSeconds() - Date.now() / 1000 < 180) ctx.skip();
    const key = await server.createKey({ name: "day", plan: "enterprise", limitMinute: 2, limitDay: 3 });
    const discover = () =>
      server.request("POST", "/v1/discover", { key: key.secret, json: { query: "send a message" } });
    await awayFromMinuteBoundary(15);

    // Minute 1: two accepted, the third refused by the minute window only.
    expect((await discover()).status).toBe(200);
    const second = await discover();
    expect(second.status).toBe(200);
    expect(limitHeaders(second)).toMatchObject({ limit: 2, remaining: 0, window: 60 });
    const minuteRefusal = await discover();
    const minuteError = expectError(minuteRefusal, 429, "rate_limit_exceeded");
    expect(minuteError.retry_after).toBeLessThanOrEqual(60);
    expect(minuteRefusal.headers.get("retry-after")).toBe(String(minuteError.retry_after));

    // Minute 2: the minute window has room again, the day has one request left.
    await sleep(secondsLeftInMinute() * 1000 + 500);
    const last = await discover();
    expect(last.status, last.text).toBe(200);
    expect(limitHeaders(last)).toMatchObject({
      limit: 3,
      remaining: 0,
      window: 86_400,
      reset: nextUtcMidnightSeconds(),
    });
    expect(parseRateLimitField(last.headers.get("ratelimit")).get("minute")?.r).toBe(1);

    // The day is exhausted: 429 with the day window's headers and Retry-After until midnight.
    const dayRefusal = await discover();
    const dayError = expectError(dayRefusal, 429, "rate_limit_exceeded");
    expect(limitHeaders(dayRefusal)).toMatchObject({
      limit: 3,
      remaining: 0,
      window: 86_400,
      reset: nextUtcMidnightSeconds(),
    });
    const retryAfter = Number(dayRefusal.headers.get("retry-after"));
    expect(dayError.retry_after).toBe(retryAfter);
    expect(Math.abs(Date.now() / 1000 + retryAfter - nextUtcMidnightSeconds())).toBeLessThanOrEqual(5);
  });

  it("without timeout_ms an execution times out after 30 s (the default)", async () => {
    const res = await server.request("GET", `/v1/executions/${defaultTimeoutId}?wait=60`, {
      key: roomy.secret,
    });
    expect(res.status, res.text).toBe(200);
    const record = bodyOf<ExecutionRecord>(res);
    expect(record.status).toBe("timed_out");
    expect(record.error?.code).toBe("execution_timeout");
    // Ran for the default 30 s: not the skill's 60 s, not some shorter limit.
    expect(record.latency_ms).toBeGreaterThanOrEqual(29_900);
    expect(record.latency_ms).toBeLessThan(45_000);
    const ranMs = Date.parse(record.finished_at ?? "") - Date.parse(record.created_at);
    expect(ranMs).toBeLessThan(45_000);
  });
});
