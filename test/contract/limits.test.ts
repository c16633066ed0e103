import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiResponse,
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  expectError,
  limitHeaders,
  nextUtcMidnightSeconds,
  parseRateLimitField,
  runCli,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

const DISCOVER = { query: "send a message to a channel" };

/** The end of the UTC minute containing `ms`, in Unix seconds. */
const minuteEnd = (ms: number) => Math.floor(ms / 60_000) * 60 + 60;

/** A 429 per the contract: Retry-After = error.retry_after, whole seconds, 1 ≤ s ≤ `max`. */
function expectRetryAfter(res: ApiResponse, max: number): number {
  const error = expectError(res, 429, "rate_limit_exceeded");
  const header = res.headers.get("retry-after");
  expect(header).toMatch(/^\d+$/);
  expect(error.retry_after).toBe(Number(header));
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

// interface-spec.md "Limits" and contract.md "Limits", on the real server and limiter.
// Tests wait for the next minute when one is about to end, hence the long timeout.
describe("contract: rate limits", { timeout: 90_000 }, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => stopExpectingNoErrors(server));

  const discover = (key: string) => server.request("POST", "/v1/discover", { key, json: DISCOVER });

  it("every /v1 response carries integer X-RateLimit-* headers, errors and 404s included, each counting once", async () => {
    const key = await server.createKey({ name: "headers" });
    const readOnly = await server.createKey({ name: "headers-ro", scope: "read-only" });
    await awayFromMinuteBoundary(20);
    const calls: [string, () => Promise<ApiResponse>][] = [
      ["200 discover", () => discover(key.secret)],
      ["200 skills", () => server.request("GET", "/v1/skills", { key: key.secret })],
      [
        "200 execute",
        () =>
          server.request("POST", "/v1/execute", {
            key: key.secret,
            json: { skill_id: "math.evaluate", params: { expression: "1+1" } },
          }),
      ],
      [
        "400",
        () =>
          server.request("POST", "/v1/execute", {
            key: key.secret,
            rawBody: "{",
            contentType: "application/json",
          }),
      ],
      ["404 not_found", () => server.request("GET", "/v1/nowhere", { key: key.secret })],
      ["404 skill_not_found", () => server.request("GET", "/v1/skills/no.such", { key: key.secret })],
      [
        "404 execution_not_found",
        () => server.request("GET", "/v1/executions/exec_nope", { key: key.secret }),
      ],
      ["405", () => server.request("GET", "/v1/execute", { key: key.secret })],
      [
        "415",
        () =>
          server.request("POST", "/v1/discover", {
            key: key.secret,
            rawBody: "x",
            contentType: "text/plain",
          }),
      ],
      [
        "422",
        () =>
          server.request("POST", "/v1/execute", {
            key: key.secret,
            json: { skill_id: "math.evaluate", params: {} },
          }),
      ],
    ];
    let expectedRemaining = 60;
    for (const [label, call] of calls) {
      const sentAt = Date.now();
      const res = await call();
      const headers = limitHeaders(res);
      expectedRemaining -= 1;
      expect(headers, label).toEqual({
        limit: 60,
        remaining: expectedRemaining,
        reset: minuteEnd(sentAt),
        window: 60,
      });
      expect(headers.reset % 60).toBe(0);
    }

    // A read-only key's 403 counts against that key too.
    const forbidden = await server.request("POST", "/v1/execute", {
      key: readOnly.secret,
      json: { skill_id: "math.evaluate", params: { expression: "1" } },
    });
    expectError(forbidden, 403, "insufficient_scope");
    expect(limitHeaders(forbidden)).toMatchObject({ limit: 60, remaining: 59, window: 60 });

    // Without a valid key: the address limit's headers.
    const unauthenticated = await server.request("POST", "/v1/discover", { json: DISCOVER });
    expectError(unauthenticated, 401, "missing_api_key");
    expect(limitHeaders(unauthenticated).window).toBe(60);
    // The OpenAPI document needs no key and still describes the address limit.
    const openapi = await server.request("GET", "/v1/openapi.json");
    expect(openapi.status).toBe(200);
    limitHeaders(openapi);
    // With a valid key it counts against the key, like every /v1 request; a wrong key
    // does not stop a document that needs none.
    const counted = await server.request("GET", "/v1/openapi.json", { key: key.secret });
    expect(counted.status).toBe(200);
    expect(limitHeaders(counted)).toMatchObject({ limit: 60, remaining: expectedRemaining - 1, window: 60 });
    expect(counted.headers.get("ratelimit-policy")).toContain('"day";q=1000;w=86400');
    expect((await server.request("GET", "/v1/openapi.json", { key: "sk_live_wrong" })).status).toBe(200);
    // Every response carries the headers (interface-spec.md): outside /v1, the address limit's.
    for (const path of [
      "/healthz",
      "/readyz",
      "/metrics",
      "/no/such/path",
      "/dashboard",
      "/dashboard/sign-in",
    ]) {
      const res = await server.request("GET", path);
      expect(limitHeaders(res).window, `${path}: ${res.status}`).toBe(60);
    }
  });

  it("RateLimit-Policy and RateLimit describe both the minute and the day window", async () => {
    const key = await server.createKey({ name: "ietf" });
    await awayFromMinuteBoundary(10);
    await discover(key.secret);
    const res = await discover(key.secret);
    expect(res.status).toBe(200);
    const policy = res.headers.get("ratelimit-policy") ?? "";
    expect(policy).toMatch(/q=60;w=60\b/);
    expect(policy).toMatch(/q=1000;w=86400\b/);
    const fields = [...parseRateLimitField(res.headers.get("ratelimit")).values()];
    expect(fields.map((f) => f.r).sort((a, b) => a - b)).toEqual([58, 998]);
    for (const field of fields) expect(Number.isInteger(field.t)).toBe(true);
  });

  // The draft's `t` is the seconds until that window resets: for each window its own end,
  // the end of the UTC minute and UTC midnight, as X-RateLimit-Reset says of the one it shows.
  it("RateLimit gives each window its own remaining count and seconds until its end", async () => {
    const key = await server.createKey({ name: "ietf-t" });
    await awayFromMinuteBoundary(10);
    const res = await discover(key.secret);
    const nowSeconds = Date.now() / 1000;
    expect(res.status).toBe(200);
    const fields = parseRateLimitField(res.headers.get("ratelimit"));
    expect([...fields.keys()].sort()).toEqual(["day", "minute"]);
    expect(fields.get("minute")?.r).toBe(59);
    expect(fields.get("day")?.r).toBe(999);
    expect(
      Math.abs((fields.get("minute")?.t ?? -1) - (minuteEnd(Date.now()) - nowSeconds)),
    ).toBeLessThanOrEqual(2);
    expect(
      Math.abs((fields.get("day")?.t ?? -1) - (nextUtcMidnightSeconds() - nowSeconds)),
    ).toBeLessThanOrEqual(2);
    expect(limitHeaders(res).reset - nowSeconds - (fields.get("minute")?.t ?? -1)).toBeLessThanOrEqual(2);
  });

  it("accepts exactly 60 of 100 concurrent requests on a fresh free key; the other 40 are 429 with Retry-After", async () => {
    const key = await server.createKey({ name: "burst" });
    await awayFromMinuteBoundary(30);
    const responses = await Promise.all(Array.from({ length: 100 }, () => discover(key.secret)));
    const accepted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(60);
    expect(refused).toHaveLength(40);
    // Remaining counts down without gaps or repeats: each accepted request counted exactly once.
    expect(accepted.map((r) => limitHeaders(r).remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    for (const res of refused) {
      const seconds = expectRetryAfter(res, 60);
      const headers = limitHeaders(res);
      expect(headers).toMatchObject({ limit: 60, remaining: 0, window: 60 });
      // Retry-After points at the end of the minute window (allow for rounding and a slow machine).
      expect(Math.abs(Date.now() / 1000 + seconds - headers.reset)).toBeLessThanOrEqual(5);
    }

    // A 429 does not count: the day window lost only the 60 accepted requests.
    const after = await discover(key.secret);
    expectRetryAfter(after, 60);
    const day = parseRateLimitField(after.headers.get("ratelimit")).get("day");
    expect(day?.r).toBe(1000 - 60);
  });

  it("a pro key reports 600 per minute", async () => {
    const key = await server.createKey({ name: "pro", plan: "pro" });
    await awayFromMinuteBoundary(5);
    const res = await discover(key.secret);
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: 600, remaining: 599, window: 60 });
    expect(res.headers.get("ratelimit-policy") ?? "").toMatch(/q=50000;w=86400\b/);
  });

  it("an enterprise key carries its own limits: 5 a minute means the 6th is 429", async () => {
    const key = await server.createKey({ name: "ent", plan: "enterprise", limitMinute: 5, limitDay: 7 });
    await awayFromMinuteBoundary(20);
    for (let i = 0; i < 5; i++) {
      const res = await discover(key.secret);
      expect(res.status, res.text).toBe(200);
      expect(limitHeaders(res)).toMatchObject({ limit: 5, remaining: 4 - i, window: 60 });
    }
    const refused = await discover(key.secret);
    expectRetryAfter(refused, 60);
    expect(limitHeaders(refused)).toMatchObject({ limit: 5, remaining: 0, window: 60 });
    expect(parseRateLimitField(refused.headers.get("ratelimit")).get("day")?.r).toBe(2);
  });

  it("an enterprise key edited with the CLI has its new limits on the server's very next request", async () => {
    const key = await server.createKey({ name: "edited", plan: "enterprise", limitMinute: 2, limitDay: 100 });
    await awayFromMinuteBoundary(20);
    for (let i = 0; i < 2; i++) expect((await discover(key.secret)).status).toBe(200);
    expectRetryAfter(await discover(key.secret), 60);

    const edited = await runCli([
      "keys",
      "edit",
      key.id,
      "--limit-minute",
      "5",
      "--limit-day",
      "100",
      "--json",
      "--data-dir",
      server.dataDir,
    ]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ id: key.id, limits: { per_minute: 5, per_day: 100 } });
    // Same secret, new limit: two of the five are spent (the 429 did not count).
    const res = await discover(key.secret);
    expect(res.status, res.text).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: 5, remaining: 2 });
  });

  it("when the day window is exhausted too, Retry-After runs until UTC midnight", async () => {
    // Both windows allow 3: after three, both are exhausted, and a retry helps only at midnight.
    const key = await server.createKey({ name: "ent-day", plan: "enterprise", limitMinute: 3, limitDay: 3 });
    await awayFromMinuteBoundary(20);
    for (let i = 0; i < 3; i++) expect((await discover(key.secret)).status).toBe(200);
    const refused = await discover(key.secret);
    const seconds = expectRetryAfter(refused, 86_400);
    expect(Math.abs(Date.now() / 1000 + seconds - nextUtcMidnightSeconds())).toBeLessThanOrEqual(5);
    // contract.md: the headers describe the window with the fewest remaining, the shorter on a tie.
    expect(limitHeaders(refused)).toMatchObject({ remaining: 0, window: 60, limit: 3 });
    // The message names the window the wait is for.
    expect(bodyOf<{ error: { message: string } }>(refused).error.message).toContain("per 86400 seconds");
  });

  it("a key refused with 429 on one route is refused on every /v1 route", async () => {
    const key = await server.createKey({
      name: "ent-small",
      plan: "enterprise",
      limitMinute: 1,
      limitDay: 10,
    });
    await awayFromMinuteBoundary(10);
    expect((await discover(key.secret)).status).toBe(200);
    expectRetryAfter(await server.request("GET", "/v1/skills", { key: key.secret }), 60);
    expectRetryAfter(
      await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "math.evaluate", params: { expression: "1" } },
      }),
      60,
    );
    const body = bodyOf<{ error: { retry_after: number } }>(await discover(key.secret));
    expect(body.error.retry_after).toBeGreaterThanOrEqual(1);
  });
});

// contract.md: requests without a valid key are limited per client address (default 30 a minute).
describe("contract: failed authentications are limited per client address", { timeout: 90_000 }, () => {
  let server: TestServer;
  let valid: CreatedKey;

  beforeAll(async () => {
    server = await startServer({ env: { SKILLPORT_FAILED_AUTH_PER_MINUTE: undefined } });
    valid = await server.createKey({ name: "valid" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  it("refuses the 31st failed authentication in a minute with 429; a valid key from the same address still works", async () => {
    await awayFromMinuteBoundary(30);
    // The last character changed to one it is not (regression: "…x" equalled the secret when it ended in x).
    const mistyped = valid.secret.slice(0, -1) + (valid.secret.endsWith("x") ? "y" : "x");
    const secrets = [undefined, "sk_live_guess", mistyped];
    for (let i = 0; i < 30; i++) {
      const secret = secrets[i % secrets.length];
      // A spoofed X-Forwarded-For must not give each guess a fresh address (no trusted proxy).
      const res = await server.request("POST", "/v1/discover", {
        key: secret,
        json: DISCOVER,
        headers: { "x-forwarded-for": `203.0.113.${i}`, "x-real-ip": `198.51.100.${i}` },
      });
      expectError(res, 401, secret === undefined ? "missing_api_key" : "invalid_api_key");
      expect(limitHeaders(res)).toMatchObject({ limit: 30, remaining: 29 - i, window: 60 });
    }
    for (const secret of secrets) {
      const refused = await server.request("POST", "/v1/discover", { key: secret, json: DISCOVER });
      expectRetryAfter(refused, 60);
      expect(limitHeaders(refused)).toMatchObject({ limit: 30, remaining: 0, window: 60 });
    }
    const ok = await server.request("POST", "/v1/discover", { key: valid.secret, json: DISCOVER });
    expect(ok.status, ok.text).toBe(200);
    expect(limitHeaders(ok)).toMatchObject({ limit: 60, remaining: 59 });
  });
});

// docs/deploy.md: behind a reverse proxy (SKILLPORT_TRUST_PROXY=true), the client's address is the one the
// proxy appended to X-Forwarded-For; what the client itself put there picks no bucket.
describe("contract: behind a trusted proxy, failed authentications are limited per real client", {
  timeout: 90_000,
}, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({
      env: { SKILLPORT_FAILED_AUTH_PER_MINUTE: undefined, SKILLPORT_TRUST_PROXY: "true" },
    });
  });
  afterAll(() => stopExpectingNoErrors(server));

  it("counts guesses whose client-sent X-Forwarded-For entries differ against the address the proxy appended", async () => {
    await awayFromMinuteBoundary(30);
    // This test plays the proxy: nginx's $proxy_add_x_forwarded_for appends the peer to what the client sent.
    const guess = (forwardedFor: string) =>
      server.request("POST", "/v1/discover", {
        key: "sk_live_guess",
        json: DISCOVER,
        headers: { "x-forwarded-for": forwardedFor },
      });
    for (let i = 0; i < 30; i++) {
      const res = await guess(`10.9.0.${i}, 203.0.113.9`);
      expectError(res, 401, "invalid_api_key");
      expect(limitHeaders(res)).toMatchObject({ limit: 30, remaining: 29 - i });
    }
    expectRetryAfter(await guess("10.9.0.200, 203.0.113.9"), 60);
    // Another client behind the same proxy has a limit of its own.
    const other = await guess("203.0.113.10");
    expectError(other, 401, "invalid_api_key");
    expect(limitHeaders(other)).toMatchObject({ limit: 30, remaining: 29 });
  });
});
