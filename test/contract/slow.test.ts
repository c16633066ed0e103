import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awayFromMinuteBoundary,
  expectError,
  limitHeaders,
  nextUtcMidnightSeconds,
  parseRateLimitField,
  secondsLeftInMinute,
  sleep,
  startServer,
  type TestServer,
} from "./harness.js";

// contract.md "Limits": the day window is a fixed window ending at UTC midnight. Reaching
// it before the minute window needs two minutes, so this test waits for one boundary.
describe("contract: the day window", { timeout: 150_000 }, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

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
});
