import { Agent, type Dispatcher } from "undici";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type RetryEvent, Skillport } from "../../src/client/index.js";
import { BACKOFF_CAP_MS } from "../../src/client/retry.js";
import { type CreatedKey, serverForSuite } from "../contract/harness.js";
import { type ConnectionPlan, rawJsonResponse, startTcpProxy, type TcpProxy } from "../contract/tcp-proxy.js";

/** An Agent that notes the (fake) clock each time a request is handed to it. */
class RecordingAgent extends Agent {
  readonly sentAtMs: number[] = [];
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.sentAtMs.push(Date.now());
    return super.dispatch(options, handler);
  }
}

/** The retry hook's events, and a way to wait for the next one. */
function retryRecorder() {
  const events: RetryEvent[] = [];
  const waiters: (() => void)[] = [];
  return {
    events,
    onRetry(event: RetryEvent) {
      events.push(event);
      waiters.shift()?.();
    },
    /** Resolves once `count` retries have been announced. */
    until(count: number): Promise<void> {
      if (events.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push(() => resolve(this.until(count))));
    },
  };
}

/** A whole second of UTC, so that an HTTP date (second precision) names an exact instant. */
const T0 = Date.UTC(2031, 4, 6, 7, 8, 9);

/**
 * The exact waits, checked on a fake clock: the retry is not sent 1 ms before the wait
 * ends and is sent when it ends. Answers the real server never gives on demand (a chosen
 * `Retry-After`, a 503) come from a proxy in front of it; the final answer is the server's.
 */
describe("client retry waits (fake timers)", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  let proxy: TcpProxy | undefined;
  let agent: RecordingAgent;

  beforeAll(async () => {
    key = await server().createRoomyKey();
  });
  beforeEach(() => {
    agent = new RecordingAgent();
    // Only the client's clock and its timers are faked; sockets stay real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
  });
  afterEach(async () => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    await agent.close();
    await proxy?.close();
  });

  /** A client behind a proxy that answers the first `answers.length` connections itself. */
  async function clientBehind(answers: string[], maxRetries: number) {
    const plan = (index: number): ConnectionPlan => {
      const answer = answers[index];
      return answer === undefined ? "forward" : { respond: answer };
    };
    proxy = await startTcpProxy(server().baseUrl, plan);
    const retries = retryRecorder();
    const client = new Skillport({
      apiKey: key.secret,
      baseUrl: proxy.baseUrl,
      dispatcher: agent,
      maxRetries,
      onRetry: retries.onRetry.bind(retries),
    });
    return { client, retries };
  }

  /** Asserts that retry `number` is sent exactly `delayMs` after the attempt before it. */
  async function expectRetryAfter(
    retries: ReturnType<typeof retryRecorder>,
    number: number,
    delayMs: number,
  ) {
    await retries.until(number);
    expect(retries.events[number - 1]?.delayMs).toBe(delayMs);
    expect(agent.sentAtMs).toHaveLength(number);
    await vi.advanceTimersByTimeAsync(delayMs - 1);
    expect(agent.sentAtMs).toHaveLength(number);
    await vi.advanceTimersByTimeAsync(1);
    expect(agent.sentAtMs).toHaveLength(number + 1);
    const [before = Number.NaN, after = Number.NaN] = agent.sentAtMs.slice(number - 1);
    expect(after - before).toBe(delayMs);
  }

  const rateLimited = (headers: Record<string, string>, retryAfterSeconds: number) =>
    rawJsonResponse(429, headers, {
      error: { code: "rate_limit_exceeded", message: "Rate limit exceeded.", retry_after: retryAfterSeconds },
    });

  it("waits exactly 2000 ms for `Retry-After: 2`, then succeeds", async () => {
    const { client, retries } = await clientBehind([rateLimited({ "retry-after": "2" }, 2)], 3);
    const call = client.discover({ query: "send a message" });
    await expectRetryAfter(retries, 1, 2_000);
    const found = await call;
    expect(found.results[0]?.skill_id).toBe("message.send");
    expect(retries.events[0]?.error).toMatchObject({
      status: 429,
      code: "rate_limit_exceeded",
      retryAfterSeconds: 2,
    });
  });

  it("waits until the instant of a `Retry-After` HTTP date (3 s ahead: 3000 ms)", async () => {
    const date = new Date(T0 + 3_000).toUTCString();
    // The body's retry_after disagrees on purpose: the header is the one to follow.
    const { client, retries } = await clientBehind([rateLimited({ "retry-after": date }, 9)], 3);
    const call = client.getSkill("util.wait");
    await expectRetryAfter(retries, 1, 3_000);
    expect((await call).skill_id).toBe("util.wait");
  });

  it("without Retry-After, backs off exponentially with equal jitter, capped at 8 s", async () => {
    // Equal jitter: half the ceiling plus a random part of the other half; at 0.5, 3/4 of it.
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const unavailable = rawJsonResponse(
      503,
      {},
      { error: { code: "service_unavailable", message: "Busy." } },
    );
    const { client, retries } = await clientBehind(Array(7).fill(unavailable), 7);
    const call = client.listSkills({ limit: 1 })[Symbol.asyncIterator]().next();
    const expected = [375, 750, 1_500, 3_000, 6_000, 6_000, 6_000];
    expect(expected.at(-1)).toBe((BACKOFF_CAP_MS * 3) / 4);
    for (const [index, delayMs] of expected.entries()) await expectRetryAfter(retries, index + 1, delayMs);
    const page = await call;
    expect(page.value?.data).toHaveLength(1);
    expect(retries.events.map((event) => event.error.code)).toEqual(Array(7).fill("service_unavailable"));
  });

  it("retries a 429 that keeps coming with exponentially growing waits, never sooner than Retry-After", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const { client, retries } = await clientBehind(Array(5).fill(rateLimited({ "retry-after": "1" }, 1)), 5);
    const call = client.discover({ query: "send a message" });
    // Backoff 375, 750, 1500, 3000, 6000 ms; the first two are raised to the server's 1 s.
    for (const [index, delayMs] of [1_000, 1_000, 1_500, 3_000, 6_000].entries()) {
      await expectRetryAfter(retries, index + 1, delayMs);
    }
    expect((await call).results[0]?.skill_id).toBe("message.send");
  });

  it("does not wait when the server asks for more than a minute (a spent daily limit): the 429 is thrown", async () => {
    const { client, retries } = await clientBehind([rateLimited({ "retry-after": "3600" }, 3_600)], 3);
    await expect(client.discover({ query: "anything" })).rejects.toMatchObject({
      status: 429,
      code: "rate_limit_exceeded",
      retryAfterSeconds: 3_600,
    });
    expect(retries.events).toEqual([]);
    expect(agent.sentAtMs).toHaveLength(1);
  });
});
