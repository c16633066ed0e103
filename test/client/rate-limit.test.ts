import { describe, expect, it } from "vitest";
import { type RetryEvent, Skillport } from "../../src/client/index.js";
import { awayFromMinuteBoundary, serverForSuite } from "../contract/harness.js";

// interface-spec.md, Authentication 7: "the library retries rate-limited requests with
// exponential backoff". Here with the real limiter: a free key's 60 a minute, spent.
describe("client against a spent rate limit", () => {
  const suiteServer = serverForSuite();

  it("a free key hammered past 60 a minute: the client waits out the 429 as told, then succeeds", {
    timeout: 120_000,
  }, async () => {
    const server = suiteServer();
    const key = await server.createKey({ name: "hammered", plan: "free" });
    await awayFromMinuteBoundary(15);
    const json = { query: "send a message" };
    const burst = await Promise.all(
      Array.from({ length: 61 }, () => server.request("POST", "/v1/discover", { key: key.secret, json })),
    );
    expect(burst.filter((res) => res.status === 200)).toHaveLength(60);
    expect(burst.filter((res) => res.status === 429)).toHaveLength(1);

    const retries: RetryEvent[] = [];
    const client = new Skillport({
      apiKey: key.secret,
      baseUrl: server.baseUrl,
      onRetry: (e) => retries.push(e),
    });
    try {
      const found = await client.discover(json);
      expect(found.results[0]?.skill_id).toBe("message.send");
    } finally {
      await client.close();
    }
    expect(retries.length).toBeGreaterThanOrEqual(1);
    for (const retry of retries) {
      expect(retry.error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
      const seconds = retry.error.retryAfterSeconds ?? Number.NaN;
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      // Never sooner than the server's Retry-After (equal to error.retry_after); backoff
      // only lengthens it, and then by at most its 8 s cap.
      expect(retry.delayMs).toBeGreaterThanOrEqual(seconds * 1000);
      expect(retry.delayMs).toBeLessThanOrEqual(Math.max(seconds * 1000, 8_000));
    }
  });
});
