import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type ExecutionEvent, Skillport, type SkillportError } from "../../src/client/index.js";
import { collect, rejectionOf } from "./support.js";

/** What a fake service answers: a status, a content type and a body, per request. */
type Answer = {
  status?: number;
  type?: string;
  body: string;
  delayMs?: number;
  headers?: Record<string, string>;
};

const json = (value: unknown): Answer => ({ type: "application/json", body: JSON.stringify(value) });
const sse = (...events: [string, unknown][]): Answer => ({
  type: "text/event-stream",
  body: events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(""),
});
/** What a consumer of `executionEvents` sees: each status, or the progress value. */
const seenOf = (events: ExecutionEvent[]) =>
  events.map((event) => (event.type === "status" ? event.record.status : `progress ${event.progress}`));
const unavailable = (retryAfterSeconds: number): Answer => ({
  status: 503,
  type: "application/json",
  headers: { "retry-after": String(retryAfterSeconds) },
  body: JSON.stringify({
    error: { code: "service_unavailable", message: "Shutting down.", retry_after: retryAfterSeconds },
  }),
});
const record = (status: string) => ({
  id: "exec_fake",
  skill_id: "util.wait",
  status,
  success: status === "completed",
  error: null,
  result: status === "completed" ? { waited_ms: 1 } : null,
  latency_ms: status === "completed" ? 1 : null,
  created_at: "2026-01-01T00:00:00.000Z",
  started_at: null,
  finished_at: null,
});

/**
 * Something other than skillport on the service's address (a proxy, a cache, another
 * program) that answers each request with the next of `answers` (the last one again
 * once they run out) and counts the requests.
 */
async function startFakeService(...answers: Answer[]) {
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)] as Answer;
    setTimeout(() => {
      res.writeHead(answer.status ?? 200, { "content-type": answer.type ?? "text/html", ...answer.headers });
      res.end(answer.body);
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, baseUrl, requests };
}

describe("client: answers that are not skillport's, and calls that cannot be sent", () => {
  let fake: Awaited<ReturnType<typeof startFakeService>> | undefined;
  let client: Skillport | undefined;
  async function dispose() {
    await client?.close();
    fake?.server.closeAllConnections();
    await new Promise((resolve) => (fake ? fake.server.close(resolve) : resolve(undefined)));
    client = undefined;
    fake = undefined;
  }
  afterEach(dispose);

  /** A client of a fresh fake service (the previous one's are closed). */
  async function clientOf(...answers: Answer[]) {
    await dispose();
    fake = await startFakeService(...answers);
    client = new Skillport({ apiKey: "sk_test_any", baseUrl: fake.baseUrl, maxRetries: 2 });
    return { client, requests: fake.requests };
  }

  it("does not read an answer past 64 MiB whole: it is unexpected_response, not retried", async () => {
    // Not the service's: a page of records at their limits stays far below.
    const huge = `{"data":[],"next_cursor":null,"pad":"${"x".repeat(65 * 1024 * 1024)}"}`;
    const { client, requests } = await clientOf({ type: "application/json", body: huge });
    const err = await rejectionOf(client.listSkills()[Symbol.asyncIterator]().next());
    expect([err.status, err.code]).toEqual([200, "unexpected_response"]);
    expect(err.message).toContain("over 64 MiB");
    expect(requests).toHaveLength(1);
  });

  // Regression (audit 26 #6): a redirect (http to https at a proxy) was reported as
  // "HTTP 301 with a body that is not JSON", not saying where it pointed.
  it("reports a redirect as one, where it points (credentials left out) and the base URL to set; it follows none", async () => {
    const redirect = (status: number, location?: string): Answer => ({
      status,
      body: "<html>Moved</html>",
      headers: location === undefined ? {} : { location },
    });
    const moved = await clientOf(redirect(301, "https://skillport.example/v1/discover"));
    const err = await rejectionOf(moved.client.discover({ query: "x" }));
    expect([err.status, err.code]).toEqual([301, "unexpected_response"]);
    expect(err.message).toBe(
      "HTTP 301 redirect to https://skillport.example/v1/discover: the client does not follow redirects (they would resend the key); set baseUrl (or SKILLPORT_BASE_URL) to https://skillport.example.",
    );
    expect(moved.requests).toEqual(["POST /v1/discover"]);

    const secretive = await clientOf(
      redirect(308, "https://user:hunter2@proxy.example/sp/v1/executions/exec_1/events?token=abc123"),
    );
    const stream = await rejectionOf(collect(secretive.client.executionEvents("exec_1")));
    expect(stream.message).toBe(
      "HTTP 308 redirect to https://…@proxy.example/sp/v1/executions/exec_1/events?…: the client does not follow redirects (they would resend the key); set baseUrl (or SKILLPORT_BASE_URL) to https://proxy.example/sp.",
    );
    expect(secretive.requests).toHaveLength(1);

    // A Location without `//` parses as a URL of its own scheme (`user:`), all of it a path.
    const opaque = await clientOf(redirect(302, "user:hunter2@proxy.example:8443/sp"));
    expect((await rejectionOf(opaque.client.discover({ query: "x" }))).message).toBe(
      "HTTP 302 redirect to user:…: the client does not follow redirects (they would resend the key); set baseUrl (or SKILLPORT_BASE_URL) to the address the service answers on.",
    );

    const elsewhere = await clientOf(redirect(302, "/login"));
    const login = await rejectionOf(elsewhere.client.getSkill("util.wait"));
    expect(login.message).toMatch(
      /^HTTP 302 redirect to http:\/\/127\.0\.0\.1:\d+\/login: the client does not follow redirects \(they would resend the key\); set baseUrl \(or SKILLPORT_BASE_URL\) to the address the service answers on\.$/,
    );
    const nowhere = await clientOf(redirect(307));
    expect((await rejectionOf(nowhere.client.discover({ query: "x" }))).message).toMatch(
      /^HTTP 307 redirect without a Location:/,
    );
  });

  it("executeStream refuses async: true (JavaScript) before sending: the server would start the run and answer no stream", async () => {
    const { client, requests } = await clientOf(json(record("queued")));
    const request = { skill_id: "util.wait", params: { ms: 1 }, async: true } as never;
    await expect(collect(client.executeStream(request))).rejects.toThrow(
      new TypeError(
        "executeStream runs the execution in its own request: leave out async (for a run in the background, use execute with async: true, then executionEvents)",
      ),
    );
    expect(requests).toEqual([]);
  });

  it("refuses an empty id before sending anything (the path would be a listing, taken for the record)", async () => {
    const { client, requests } = await clientOf(json({ data: [], next_cursor: null }));
    for (const call of [
      () => client.getExecution(""),
      () => client.getExecution("", { waitSeconds: 2 }),
      () => client.waitForExecution("", { timeoutMs: 3_000 }),
      () => client.cancelExecution(""),
      () => client.getSkill(""),
      () => collect(client.executionEvents("")),
    ]) {
      const refusal = await call().catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(TypeError);
      expect(String(refusal)).toMatch(/must be a non-empty string/);
    }
    expect(requests).toEqual([]);
  });

  it("a 200 whose JSON is not what was asked for is unexpected_response, sent once, for every method", async () => {
    for (const body of [null, {}, [], "text", { status: "weird", id: "exec_fake" }, { data: "x" }]) {
      const { client, requests } = await clientOf(json(body));
      const calls = [
        () => client.discover({ query: "anything" }),
        () => client.execute({ skill_id: "math.evaluate", params: {} }),
        () => client.execute({ skill_id: "math.evaluate", params: {} }, { throwOnFailure: true }),
        () => client.getExecution("exec_fake"),
        () => client.waitForExecution("exec_fake", { timeoutMs: 3_000 }),
        () => client.cancelExecution("exec_fake"),
        () => client.getSkill("math.evaluate"),
        () => collect(client.listSkills()),
        () => collect(client.listExecutions()),
      ];
      for (const call of calls) {
        const err = await rejectionOf(call());
        expect([err.status, err.code, body]).toEqual([200, "unexpected_response", body]);
        expect(err.message).toMatch(/^HTTP 200 with JSON that is not an? /);
      }
      expect(requests).toHaveLength(calls.length);
    }
  });

  it("waitForExecution polls at most once a second when something answers a running record at once", async () => {
    const { client, requests } = await clientOf(json(record("running")));
    const startedMs = performance.now();
    const err = await rejectionOf(client.waitForExecution("exec_fake", { timeoutMs: 2_500 }));
    expect(err.code).toBe("timeout");
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(2_400);
    // Polls at about 0, 1 and 2 s (thousands, without the pause).
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(4);
  });

  it("executionEvents: a 200 that is not an event stream is unexpected_response, not a stream without events", async () => {
    for (const answer of [
      { type: "text/html", body: "<html><body>Sign in to the proxy</body></html>" },
      json(record("running")),
    ]) {
      const { client } = await clientOf(answer);
      const err = await rejectionOf(collect(client.executionEvents("exec_fake")));
      expect([err.status, err.code]).toEqual([200, "unexpected_response"]);
      expect(err.message).toContain("instead of an event stream");
    }
  });

  it("executionEvents: a stream that ends before the final status is followed on a new one, without repeating the status already given", async () => {
    const progress = { type: "progress", execution_id: "exec_fake", progress: 1, total: 2 };
    const { client, requests } = await clientOf(
      // A graceful shutdown ends a queued execution's stream on `queued`; the restarted
      // service begins each stream with the current status again.
      sse(["status", record("queued")]),
      sse(["status", record("queued")], ["status", record("running")], ["progress", progress]),
      sse(["status", record("running")], ["progress", progress], ["status", record("completed")]),
    );
    const events = await collect(client.executionEvents("exec_fake"));
    expect(seenOf(events)).toEqual(["queued", "running", "progress 1", "progress 1", "completed"]);
    expect(requests).toEqual(Array(3).fill("GET /v1/executions/exec_fake/events"));
  });

  it("executionEvents opens a new stream at most once a second when every stream ends at once", async () => {
    const { client, requests } = await clientOf(sse(["status", record("running")]));
    const seen: ExecutionEvent[] = [];
    const startedMs = performance.now();
    const stopped = await (async () => {
      for await (const event of client.executionEvents("exec_fake", { signal: AbortSignal.timeout(2_500) })) {
        seen.push(event);
      }
    })().catch((err: unknown) => err);
    expect((stopped as Error).name).toBe("TimeoutError");
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(2_400);
    // Streams at about 0, 1 and 2 s (hundreds, without the pause), the status given once.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(4);
    expect(seenOf(seen)).toEqual(["running"]);
  });

  it("executionEvents: a new stream refused with 503 and Retry-After is retried; a refusal that outlasts the retries is thrown", async () => {
    const { client, requests } = await clientOf(
      sse(["status", record("queued")]),
      unavailable(1),
      sse(["status", record("queued")], ["status", record("completed")]),
    );
    const startedMs = performance.now();
    expect(seenOf(await collect(client.executionEvents("exec_fake")))).toEqual(["queued", "completed"]);
    expect(requests).toHaveLength(3);
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(1_900);

    // maxRetries: 2, so the stream and three refusals.
    const { client: second, requests: secondRequests } = await clientOf(
      sse(["status", record("running")]),
      unavailable(0),
    );
    const seen: ExecutionEvent[] = [];
    const refused = await rejectionOf(
      (async () => {
        for await (const event of second.executionEvents("exec_fake")) seen.push(event);
      })(),
    );
    expect([refused.status, refused.code, refused.retryAfterSeconds]).toEqual([
      503,
      "service_unavailable",
      0,
    ]);
    expect(seenOf(seen)).toEqual(["running"]);
    expect(secondRequests).toHaveLength(4);
  });

  // Regression: retryAfterSeconds came only from the body's retry_after, so a proxy's 429
  // or 503 with only the header was thrown without it, though the retries waited for it.
  it("a refusal with Retry-After but no retry_after in its body (a proxy's) carries the header's wait as retryAfterSeconds", async () => {
    const proxyRefusal = (status: number, retryAfter: string, body: string): Answer => ({
      status,
      type: body.startsWith("{") ? "application/json" : "text/html",
      headers: { "retry-after": retryAfter },
      body,
    });
    const limited = JSON.stringify({ error: { code: "rate_limit_exceeded", message: "Slow down." } });
    // Over a minute: thrown at once, telling when to come back.
    for (const [answer, code] of [
      [proxyRefusal(429, "3600", limited), "rate_limit_exceeded"],
      [proxyRefusal(503, "120", "<html>Maintenance</html>"), "unexpected_response"],
    ] as const) {
      const { client, requests } = await clientOf(answer);
      const err = await rejectionOf(client.getExecution("exec_fake"));
      expect([err.status, err.code, err.retryAfterSeconds]).toEqual([
        answer.status,
        code,
        Number(answer.headers?.["retry-after"]),
      ]);
      expect(err.body.retry_after).toBeUndefined();
      expect(requests).toHaveLength(1);
    }

    // A caller that decides itself when to try again (retryRefusals: false) is told the wait,
    // an HTTP date's too (in whole seconds, rounded up: never sooner than asked).
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    for (const [retryAfter, lowest, highest] of [
      ["7", 7, 7],
      [inTwoMinutes, 118, 120],
    ] as const) {
      await dispose();
      fake = await startFakeService(proxyRefusal(503, retryAfter, "<html>Busy</html>"));
      client = new Skillport({ apiKey: "sk_test_any", baseUrl: fake.baseUrl, retryRefusals: false });
      const err = await rejectionOf(client.discover({ query: "anything" }));
      expect(err.status).toBe(503);
      expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(lowest);
      expect(err.retryAfterSeconds).toBeLessThanOrEqual(highest);
      expect(Number.isInteger(err.retryAfterSeconds)).toBe(true);
    }
  });

  it("executionEvents: a new stream that is not an event stream, or whose status is no record, is unexpected_response", async () => {
    for (const [answer, message] of [
      [
        { type: "text/html", body: "<html><body>Sign in to the proxy</body></html>" },
        "instead of an event stream",
      ],
      [sse(["status", null]), "does not carry an execution record"],
    ] as const) {
      const { client, requests } = await clientOf(sse(["status", record("running")]), answer);
      const err = await rejectionOf(collect(client.executionEvents("exec_fake")));
      expect(err.code).toBe("unexpected_response");
      expect(err.message).toContain(message);
      expect(requests).toHaveLength(2);
    }
  });

  // Regression: the SSE parser kept an unfinished event in memory until its blank line, so a
  // stream of `data: ` and then hundreds of megabytes without a newline was held whole.
  it("executionEvents: an event that never ends is read no further than 64 MiB: unexpected_response, not retried", async () => {
    const requests: string[] = [];
    let sentBytes = 0;
    const endless = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "text/event-stream" });
      // A stream opened again finds the execution ended: without a cap, the call ends well.
      if (requests.length > 1) {
        res.end(`event: status\ndata: ${JSON.stringify(record("completed"))}\n\n`);
        return;
      }
      res.write("event: status\ndata: ");
      const mebibyte = "x".repeat(1024 * 1024);
      const writeMore = () => {
        while (sentBytes < 128 * 1024 * 1024 && !res.destroyed) {
          sentBytes += mebibyte.length;
          if (!res.write(mebibyte)) {
            res.once("drain", writeMore);
            return;
          }
        }
        res.end();
      };
      writeMore();
    });
    await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve));
    const endlessClient = new Skillport({
      apiKey: "sk_test_any",
      baseUrl: `http://127.0.0.1:${(endless.address() as AddressInfo).port}`,
    });
    try {
      const err = await rejectionOf(collect(endlessClient.executionEvents("exec_fake")));
      expect([err.status, err.code]).toEqual([undefined, "unexpected_response"]);
      expect(err.message).toBe(
        "An event of the stream is over 64 MiB (not read whole): no event of the service's is so large.",
      );
      expect(requests).toEqual(["GET /v1/executions/exec_fake/events"]);
      // The client stopped reading past the cap (what the sockets' buffers hold aside).
      expect(sentBytes).toBeLessThan(100 * 1024 * 1024);
    } finally {
      await endlessClient.close();
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it("executionEvents ends quietly after the final status", async () => {
    const { client } = await clientOf(sse(["status", record("running")], ["status", record("completed")]));
    const events = await collect(client.executionEvents("exec_fake"));
    expect(events.map((event) => (event.type === "status" ? event.record.status : event.type))).toEqual([
      "running",
      "completed",
    ]);
  });

  it("deadlines past what one timer holds wait instead of failing at once (waitForExecution, the largest timeoutMs)", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      for (const timeoutMs of [2 ** 31, 30 * 24 * 3600 * 1000, Number.POSITIVE_INFINITY]) {
        const { client } = await clientOf(
          { ...json(record("running")), delayMs: 50 },
          { ...json(record("completed")), delayMs: 50 },
        );
        await expect(client.waitForExecution("exec_fake", { timeoutMs })).resolves.toMatchObject({
          status: "completed",
        });
      }
      // The client's own largest attempt time, with a synchronous run's time added on top.
      await dispose();
      fake = await startFakeService({ ...json(record("completed")), delayMs: 50 });
      client = new Skillport({ apiKey: "sk_test_any", baseUrl: fake.baseUrl, timeoutMs: 2_147_483_647 });
      await expect(client.execute({ skill_id: "util.wait", params: { ms: 1 } })).resolves.toMatchObject({
        status: "completed",
      });
      await expect(client.getExecution("exec_fake", { waitSeconds: 60 })).resolves.toMatchObject({
        status: "completed",
      });
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("TimeoutOverflowWarning");
  });

  // Regression (audit 23, new user #11): a wait over the server's limit went out and came
  // back as a 400 SkillportError, where the README says call mistakes throw before sending.
  it("getExecution refuses a waitSeconds the server would, before sending, naming the limit", async () => {
    const { client, requests } = await clientOf(json(record("completed")));
    for (const waitSeconds of [61, 1.5, -1, Number.NaN]) {
      await expect(client.getExecution("exec_fake", { waitSeconds }), String(waitSeconds)).rejects.toThrow(
        new RangeError(
          "waitSeconds must be a whole number of seconds from 0 to 60 (the server's longest wait); for longer, use waitForExecution",
        ),
      );
    }
    expect(requests).toEqual([]);
  });

  it("waitForExecution refuses a timeoutMs that is no duration", async () => {
    const { client, requests } = await clientOf(json(record("completed")));
    for (const timeoutMs of [0, -5, Number.NaN, "5000" as unknown as number]) {
      await expect(client.waitForExecution("exec_fake", { timeoutMs })).rejects.toThrow(RangeError);
    }
    expect(requests).toEqual([]);
  });

  // Regression (audit 21 client F7, left open in session 26): a call after close() threw
  // undici's raw "ClientDestroyedError: The client is destroyed".
  it("a call after close() throws client_closed, saying so, and sends nothing", async () => {
    const { client, requests } = await clientOf(json(record("completed")));
    await client.getExecution("exec_fake");
    await client.close();
    const err = await rejectionOf(client.getExecution("exec_fake"));
    expect([err.status, err.code]).toEqual([undefined, "client_closed"]);
    expect(err.message).toBe(
      "This Skillport client is closed (close() was called, or its dispatcher was closed): create a new one for further calls.",
    );
    const streamed = await rejectionOf(collect(client.executionEvents("exec_fake")));
    expect(streamed.code).toBe("client_closed");
    expect(requests).toEqual(["GET /v1/executions/exec_fake"]);
  });

  // Regression: close() closed the pool at once for a call asleep between two attempts, which
  // then failed with client_closed though its first request had gone out.
  it("close() lets the calls in flight finish, their waits between attempts and the attempts after them included; a call begun after it is refused", async () => {
    const inProgress: Answer = {
      status: 409,
      ...json({
        error: { code: "idempotency_in_progress", message: "Still running.", execution_id: "exec_fake" },
      }),
    };
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    type Scenario = [
      string,
      Answer[],
      (client: Skillport, closeNow: () => void, requests: string[]) => Promise<string>,
    ];
    const scenarios: Scenario[] = [
      [
        "a retry's backoff",
        [unavailable(1), json(record("completed"))],
        async (client) => (await client.getExecution("exec_fake")).status,
      ],
      [
        "a run waited out under the caller's Idempotency-Key",
        [inProgress, json(record("completed"))],
        async (client) =>
          (await client.execute({ skill_id: "util.wait", params: { ms: 1 } }, { idempotencyKey: "mine" }))
            .status,
      ],
      [
        "the pause between two long polls",
        [json(record("running")), json(record("completed"))],
        async (client, closeNow, requests) => {
          const waiting = client.waitForExecution("exec_fake");
          while (requests.length === 0) await pause(10);
          // Most likely in the second's pause before the next poll by now; the first poll's
          // answer may still be on its way, which close() must wait for alike.
          await pause(100);
          closeNow();
          return (await waiting).status;
        },
      ],
      [
        "an event stream's reconnection",
        [sse(["status", record("running")]), sse(["status", record("completed")])],
        async (client, closeNow) => {
          const seen: ExecutionEvent[] = [];
          for await (const event of client.executionEvents("exec_fake")) {
            seen.push(event);
            // The first stream ends after this event: the follow opens another a second later.
            closeNow();
          }
          return seenOf(seen).join(" ");
        },
      ],
    ];
    for (const [what, answers, call] of scenarios) {
      await dispose();
      fake = await startFakeService(...answers);
      const order: string[] = [];
      let closing: Promise<void> | undefined;
      let refused: Promise<SkillportError> | undefined;
      const closeNow = () => {
        if (closing !== undefined || client === undefined) return;
        closing = client.close().then(() => {
          order.push("closed");
        });
        refused = rejectionOf(client.getSkill("util.wait"));
      };
      client = new Skillport({ apiKey: "sk_test_any", baseUrl: fake.baseUrl, onRetry: closeNow });
      const outcome = await call(client, closeNow, fake.requests);
      order.push("call ended");
      await closing;
      expect(outcome, what).toBe(
        what === "an event stream's reconnection" ? "running completed" : "completed",
      );
      expect(order, what).toEqual(["call ended", "closed"]);
      expect((await refused)?.code, what).toBe("client_closed");
      // The call's two requests, none of the refused one.
      expect(fake.requests, what).toHaveLength(2);
    }
  });

  it("close() does not wait for a listing read for its first page only; its next page, asked for after, is refused", async () => {
    const { client, requests } = await clientOf(json({ data: [], next_cursor: "more" }));
    const pages = client.listExecutions();
    expect((await pages.next()).value).toEqual({ data: [], next_cursor: "more" });
    await client.close();
    expect((await rejectionOf(pages.next())).code).toBe("client_closed");
    expect(requests).toHaveLength(1);
  });

  it("a client given the caller's own dispatcher refuses calls after close() with client_closed, sending nothing, and leaves the dispatcher open", async () => {
    await dispose();
    fake = await startFakeService(json(record("completed")));
    const { baseUrl, requests } = fake;
    const agent = new Agent();
    const own = new Skillport({ apiKey: "sk_test_any", baseUrl, dispatcher: agent });
    try {
      expect((await own.getExecution("exec_fake")).status).toBe("completed");
      await own.close();
      const err = await rejectionOf(own.getExecution("exec_fake"));
      expect([err.status, err.code]).toEqual([undefined, "client_closed"]);
      expect((await rejectionOf(collect(own.executionEvents("exec_fake")))).code).toBe("client_closed");
      expect((await rejectionOf(own.listSkills().next())).code).toBe("client_closed");
      expect(requests).toEqual(["GET /v1/executions/exec_fake"]);
      // The dispatcher is the caller's, open for their other requests.
      const answer = await agent.request({ origin: baseUrl, path: "/anything", method: "GET" });
      await answer.body.dump();
      expect(requests).toEqual(["GET /v1/executions/exec_fake", "GET /anything"]);
    } finally {
      await agent.close();
    }
  });

  // Left open in session 26: the 409 idempotency_in_progress now names the run going on.
  it("carries the server's execution_id as executionId, and the record's id under throwOnFailure", async () => {
    const inProgress = {
      code: "idempotency_in_progress",
      message:
        "A request with this Idempotency-Key is still being processed: execution exec_fake is running.",
      execution_id: "exec_fake",
      request_id: "req_1",
    };
    const { client } = await clientOf({ ...json({ error: inProgress }), status: 409 });
    const err = await rejectionOf(client.execute({ skill_id: "util.wait", params: { ms: 1 } }));
    expect([err.status, err.code, err.executionId]).toEqual([409, "idempotency_in_progress", "exec_fake"]);
    expect(err.body).toEqual(inProgress);
  });

  it("does not show its key when logged or serialised", () => {
    const secret = "sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    const shown = new Skillport({ apiKey: secret, baseUrl: "http://127.0.0.1:9" });
    expect(inspect(shown, { depth: 10, showHidden: true })).not.toContain("AbCdEfGh");
    expect(JSON.stringify(shown)).not.toContain("AbCdEfGh");
  });
});
