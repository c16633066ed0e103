import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

let core: Awaited<ReturnType<typeof makeCore>>;
const clock = new ManualClock();

beforeEach(async () => {
  clock.set(Date.UTC(2026, 10, 22, 12, 0, 30)); // 30 s into a minute
  core = await makeCore(testSkills, { clock, failedAuthPerMinute: 3 });
});
afterEach(() => core.cleanup());

describe("AccessGate", () => {
  it("admits a valid key and counts the request in both windows", async () => {
    const { secret } = await core.createKey();
    const admission = await core.skillport.access.admit(secret, "10.0.0.1");
    expect(admission.admitted).toBe(true);
    expect(admission.limit?.windows.map((w) => [w.windowSeconds, w.remaining])).toEqual([
      [60, 59],
      [86_400, 999],
    ]);
  });

  it("refuses a missing key as missing_api_key and a malformed one as invalid_api_key", async () => {
    const missing = await core.skillport.access.admit(undefined, "10.0.0.1");
    const malformed = await core.skillport.access.admit("sk_live_nope", "10.0.0.1");
    expect(!missing.admitted && missing.error.code).toBe("missing_api_key");
    expect(!malformed.admitted && malformed.error.code).toBe("invalid_api_key");
  });

  it("refuses a revoked key on the very next request", async () => {
    const { key, secret } = await core.createKey();
    expect((await core.skillport.access.admit(secret, "a")).admitted).toBe(true);
    await core.skillport.keys.revoke(key.id);
    const after = await core.skillport.access.admit(secret, "a");
    expect(!after.admitted && after.error.code).toBe("invalid_api_key");
  });

  it("refuses an expired key from the moment it expires", async () => {
    const expiresAt = new Date(clock.now() + 10_000).toISOString();
    const { secret } = await core.createKey({ expiresAt });
    expect((await core.skillport.access.admit(secret, "a")).admitted).toBe(true);
    clock.advance(10_000);
    const after = await core.skillport.access.admit(secret, "a");
    expect(!after.admitted && after.error.code).toBe("invalid_api_key");
  });

  it("accepts exactly the plan's minute limit, then answers 429 until the minute ends", async () => {
    const { secret } = await core.createKey({ plan: "free" });
    const results = [];
    for (let i = 0; i < 61; i++) results.push(await core.skillport.access.admit(secret, "a"));
    expect(results.filter((r) => r.admitted)).toHaveLength(60);
    const refused = results[60];
    expect(refused && !refused.admitted && refused.error.code).toBe("rate_limit_exceeded");
    expect(refused && !refused.admitted && refused.error.retryAfterSeconds).toBe(30);
    clock.advance(30_000); // the next minute
    expect((await core.skillport.access.admit(secret, "a")).admitted).toBe(true);
  });

  it("does not count refused requests in the day window", async () => {
    const { secret } = await core.createKey({ plan: "enterprise", limits: { perMinute: 2, perDay: 100 } });
    for (let i = 0; i < 5; i++) await core.skillport.access.admit(secret, "a");
    clock.advance(60_000);
    const next = await core.skillport.access.admit(secret, "a");
    expect(next.admitted && next.limit.windows[1]?.remaining).toBe(100 - 3);
  });

  it("limits an enterprise key by its own day limit, resetting at UTC midnight", async () => {
    const { secret } = await core.createKey({ plan: "enterprise", limits: { perMinute: 10, perDay: 3 } });
    for (let i = 0; i < 3; i++) expect((await core.skillport.access.admit(secret, "a")).admitted).toBe(true);
    const refused = await core.skillport.access.admit(secret, "a");
    expect(refused.admitted).toBe(false);
    expect(refused.limit?.current.windowSeconds).toBe(86_400);
    const midnight = Date.UTC(2026, 10, 23) / 1000;
    expect(refused.limit?.current.resetAtSeconds).toBe(midnight);
    expect(!refused.admitted && refused.error.retryAfterSeconds).toBe(midnight - clock.now() / 1000);
  });

  it("limits failed authentications per address, leaving valid keys and other addresses alone", async () => {
    const { secret } = await core.createKey();
    for (let i = 0; i < 3; i++) {
      const r = await core.skillport.access.admit("sk_live_wrong", "10.9.9.9");
      expect(!r.admitted && r.error.code).toBe("invalid_api_key");
    }
    const fourth = await core.skillport.access.admit("sk_live_wrong", "10.9.9.9");
    expect(!fourth.admitted && fourth.error.code).toBe("rate_limit_exceeded");
    // Said as the address's limit of failed authentications, not as a key's rate limit: it
    // read "Rate limit exceeded: 3 requests per 60 seconds", and a client with a mistyped
    // key took it for its plan's limit and waited to retry the same key.
    expect(!fourth.admitted && fourth.error.message).toBe(
      "Too many requests without a working API key from this address (10.9.9.9): 3 in 60 seconds. Requests with a working key are still served; check the key (the 401 answers said what is wrong with it).",
    );
    expect(fourth.limit?.current.limit).toBe(3);
    expect((await core.skillport.access.admit(secret, "10.9.9.9")).admitted).toBe(true);
    const elsewhere = await core.skillport.access.admit("sk_live_wrong", "10.1.1.1");
    expect(!elsewhere.admitted && elsewhere.error.code).toBe("invalid_api_key");
  });
});
