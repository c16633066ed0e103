import { once } from "node:events";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type ExecuteStreamEvent,
  type ExecutionEvent,
  type RetryEvent,
  Skillport,
} from "../../src/client/index.js";
import { generateSecret } from "../../src/core/keys/secret.js";
import { awayFromMinuteBoundary, type CreatedKey, serverForSuite } from "../contract/harness.js";
import { runningRecord } from "../support/running-record.js";
import { collect, rejectionOf } from "./support.js";

/** undici's clock for its idle timeouts, moved on by hand (its hook for tests). */
const undiciTimers = createRequire(import.meta.url)("undici/lib/util/timers.js") as {
  tick(ms: number): void;
};

const statuses = (events: ExecuteStreamEvent[]) =>
  events.flatMap((event) => (event.type === "status" ? [event.record.status] : []));

// README, client library: `executeStream` runs an execution in one request and yields its events.
describe("client: executeStream against the real server", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  let client: Skillport;

  beforeAll(async () => {
    key = await server().createKey({
      owner: "client-stream",
      plan: "enterprise",
      limitMinute: 200,
      limitDay: 10_000,
    });
    client = new Skillport({ apiKey: key.secret, baseUrl: server().baseUrl });
  });
  afterAll(async () => {
    await client?.close();
  });

  const remaining = async () =>
    Number(
      (await server().request("GET", "/v1/skills?limit=1", { key: key.secret })).headers.get(
        "x-ratelimit-remaining",
      ),
    );

  it("yields the running record first, then progress, then the terminal record, in one request counted once", async () => {
    await awayFromMinuteBoundary(10);
    const before = await remaining();
    const events = await collect(client.executeStream({ skill_id: "util.wait", params: { ms: 1_200 } }));
    expect(statuses(events)).toEqual(["running", "completed"]);
    const first = events[0] as Extract<ExecutionEvent, { type: "status" }>;
    expect(events.filter((event) => event.type === "progress")[0]).toMatchObject({
      execution_id: first.record.id,
    });
    expect(events.at(-1)).toMatchObject({ type: "status", record: { id: first.record.id, success: true } });
    // The reading of the limit before, the stream, and this reading: two counted besides the first.
    expect(await remaining()).toBe(before - 2);
  });

  it("throws a refusal before the run as the server's error, before any event", async () => {
    const err = await rejectionOf(
      collect(client.executeStream({ skill_id: "util.wait", params: { ms: "soon" } })),
    );
    expect(err).toMatchObject({ status: 422, code: "invalid_params" });
  });

  it("aborting closes the stream and leaves the execution running, to be cancelled by the id of its first event", async () => {
    const stop = new AbortController();
    let id = "";
    const reading = (async () => {
      for await (const event of client.executeStream(
        { skill_id: "util.wait", params: { ms: 20_000 } },
        { signal: stop.signal },
      )) {
        if (event.type === "status") id = event.record.id;
        stop.abort(new Error("enough"));
      }
    })();
    await expect(reading).rejects.toThrow("enough");
    expect((await client.getExecution(id)).status).toBe("running");
    expect((await client.cancelExecution(id)).status).toBe("cancelled");
  });
});

describe("client: executeStream when the stream ends early", () => {
  it("follows the execution on its own events once its id is known, without running it again", async () => {
    const running = runningRecord("util.wait");
    const completed = { ...running, status: "completed", success: true, result: { waited_ms: 1 } };
    const requests: string[] = [];
    const fake = createServer((req, res) => {
      req.resume();
      requests.push(`${req.method} ${req.url} ${req.headers.accept}`);
      res.writeHead(200, { "content-type": "text/event-stream" });
      // The execute's stream ends on the running record (a server shutting down does so).
      const record = req.method === "POST" ? running : completed;
      res.end(`event: status\ndata: ${JSON.stringify(record)}\n\n`);
    });
    fake.listen(0, "127.0.0.1");
    await once(fake, "listening");
    const { port } = fake.address() as AddressInfo;
    const client = new Skillport({
      apiKey: generateSecret("production"),
      baseUrl: `http://127.0.0.1:${port}`,
    });
    try {
      const events = await collect(client.executeStream({ skill_id: "util.wait", params: { ms: 1 } }));
      expect(statuses(events)).toEqual(["running", "completed"]);
      expect(requests).toEqual([
        "POST /v1/execute text/event-stream",
        `GET /v1/executions/${running.id}/events text/event-stream`,
      ]);
    } finally {
      await client.close();
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});

describe("client: an event stream cut before its end", () => {
  const running = runningRecord("util.wait");
  const completed = { ...running, status: "completed", success: true, result: { waited_ms: 1 } };
  const statusEvent = (record: object) => `event: status\ndata: ${JSON.stringify(record)}\n\n`;

  /**
   * A fake server answering each request with `answer(index of the request)`: the events it
   * writes, then whether the connection is cut (destroyed, as a crash or a proxy leaves it)
   * or the stream ends, or a refusal instead of a stream.
   */
  async function fakeServer(
    answer: (
      index: number,
    ) => { events: string; after: "cut" | "end" | "silence"; ending?: () => void } | "rate-limited",
  ) {
    const requests: string[] = [];
    const fake = createServer((req, res) => {
      req.resume();
      const answered = answer(requests.length);
      requests.push(`${req.method} ${req.url} ${req.headers["idempotency-key"] ?? "-"}`);
      if (answered === "rate-limited") {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end(JSON.stringify({ error: { code: "rate_limit_exceeded", message: "Rate limit exceeded." } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      // A comment first: the answer has begun (headers and a chunk sent) before the cut.
      res.write(`: stream\n\n${answered.events}`);
      const finish = (how: () => void) => () => {
        answered.ending?.();
        how();
      };
      if (answered.after === "end")
        setTimeout(
          finish(() => res.end()),
          20,
        );
      else if (answered.after === "cut")
        setTimeout(
          finish(() => res.socket?.destroy()),
          50,
        );
    });
    fake.listen(0, "127.0.0.1");
    await once(fake, "listening");
    const { port } = fake.address() as AddressInfo;
    return {
      requests,
      baseUrl: `http://127.0.0.1:${port}`,
      close: () => {
        // A silent stream's connection may still be open.
        fake.closeAllConnections();
        return new Promise((resolve) => fake.close(resolve));
      },
    };
  }

  async function withClient<T>(
    fake: Awaited<ReturnType<typeof fakeServer>>,
    options: { maxRetries?: number; retryRefusals?: boolean; onRetry?: (event: RetryEvent) => void },
    use: (client: Skillport) => Promise<T>,
  ): Promise<T> {
    const client = new Skillport({ apiKey: generateSecret("production"), baseUrl: fake.baseUrl, ...options });
    try {
      return await use(client);
    } finally {
      await client.close();
      await fake.close();
    }
  }

  it("executionEvents follows the execution on a new stream, as after a stream that ended", async () => {
    const fake = await fakeServer((index) =>
      index === 0
        ? { events: statusEvent(running), after: "cut" }
        : { events: statusEvent(completed), after: "end" },
    );
    const events = await withClient(fake, {}, (client) => collect(client.executionEvents(running.id)));
    expect(statuses(events)).toEqual(["running", "completed"]);
    expect(fake.requests).toEqual([
      `GET /v1/executions/${running.id}/events -`,
      `GET /v1/executions/${running.id}/events -`,
    ]);
  });

  it("executeStream cut before its first event sends the execute again with the same Idempotency-Key, so the skill runs once", async () => {
    const fake = await fakeServer((index) =>
      index === 0
        ? { events: "", after: "cut" }
        : { events: statusEvent(running) + statusEvent(completed), after: "end" },
    );
    const events = await withClient(fake, {}, (client) =>
      collect(client.executeStream({ skill_id: "util.wait", params: { ms: 1 } }, { idempotencyKey: "once" })),
    );
    expect(statuses(events)).toEqual(["running", "completed"]);
    expect(fake.requests).toEqual(["POST /v1/execute once", "POST /v1/execute once"]);
  });

  it("with retryRefusals false, a refusal of the execute sent again after the cut is retried: the first may have run", async () => {
    const fake = await fakeServer((index) =>
      index === 0
        ? { events: "", after: "cut" }
        : index === 1
          ? "rate-limited"
          : { events: statusEvent(running) + statusEvent(completed), after: "end" },
    );
    const events = await withClient(fake, { retryRefusals: false }, (client) =>
      collect(client.executeStream({ skill_id: "util.wait", params: { ms: 1 } }, { idempotencyKey: "once" })),
    );
    expect(statuses(events)).toEqual(["running", "completed"]);
    expect(fake.requests).toEqual([
      "POST /v1/execute once",
      "POST /v1/execute once",
      "POST /v1/execute once",
    ]);
  });

  it("a stream cut after its terminal record ends the iteration as it is, even with no retries to spend", async () => {
    const fake = await fakeServer(() => ({
      events: statusEvent(running) + statusEvent(completed),
      after: "cut",
    }));
    const events = await withClient(fake, { maxRetries: 0 }, (client) =>
      collect(client.executionEvents(running.id)),
    );
    expect(statuses(events)).toEqual(["running", "completed"]);
    expect(fake.requests).toHaveLength(1);
  });

  it("a stream silent past the idle limit (a connection that died unseen) is followed on a new one", async () => {
    const fake = await fakeServer((index) =>
      index === 0
        ? { events: statusEvent(running), after: "silence" }
        : { events: statusEvent(completed), after: "end" },
    );
    const events = await withClient(fake, {}, async (client) => {
      const seen: ExecuteStreamEvent[] = [];
      let done = false;
      const followed = (async () => {
        for await (const event of client.executionEvents(running.id)) seen.push(event);
      })().finally(() => {
        done = true;
      });
      // undici's clock is moved past the 45 s idle limit until the stream gives up on the
      // silence (its timer starts once the body is read), and the new stream has ended.
      while (!done) {
        undiciTimers.tick(0);
        undiciTimers.tick(46_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await followed;
      return seen;
    });
    expect(statuses(events)).toEqual(["running", "completed"]);
    expect(fake.requests).toHaveLength(2);
  });

  // Regression: a stream is found silent only past the 45 s idle limit, so it had always
  // stayed open past LONG_STREAM_MS and started the count afresh: a server that sent one
  // event and then nothing was asked again every 45 s forever, and `timeout` never thrown.
  for (const method of ["executionEvents", "executeStream"] as const) {
    it(`${method}: throws timeout once maxRetries streams in a row fell silent, though each was found silent only after 45 s`, async () => {
      const requests: string[] = [];
      const silent = createServer((req, res) => {
        req.resume();
        requests.push(`${req.method} ${req.url}`);
        res.writeHead(200, { "content-type": "text/event-stream" });
        // The first stream gives the running record and then nothing; the next ones nothing at all.
        if (requests.length === 1) res.write(statusEvent(running));
        else res.flushHeaders();
      });
      silent.listen(0, "127.0.0.1");
      await once(silent, "listening");
      const { port } = silent.address() as AddressInfo;
      const retries: RetryEvent[] = [];
      const client = new Skillport({
        apiKey: generateSecret("production"),
        baseUrl: `http://127.0.0.1:${port}`,
        maxRetries: 1,
        onRetry: (event) => retries.push(event),
      });
      const stop = new AbortController();
      // The client's clock, moved on by hand with undici's below.
      let clock = Date.now();
      const now = vi.spyOn(Date, "now").mockImplementation(() => clock);
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      try {
        const seen: ExecuteStreamEvent[] = [];
        let outcome: unknown;
        let done = false;
        const events =
          method === "executionEvents"
            ? client.executionEvents(running.id, { signal: stop.signal })
            : client.executeStream({ skill_id: "util.wait", params: { ms: 1 } }, { signal: stop.signal });
        const followed = (async () => {
          for await (const event of events) seen.push(event);
        })().then(
          () => {
            outcome = "ended";
          },
          (err: unknown) => {
            outcome = err;
          },
        );
        void followed.finally(() => {
          done = true;
        });
        // The clocks move only once the first event is in; then each silence is found past
        // the idle limit, 46 s after the stream's last bytes on the client's clock. A stream
        // without a single byte is the same whenever the clocks move.
        while (seen.length === 0 && !done) await pause(10);
        // Without the fix the streams go on; four of them are enough to tell.
        while (!done && requests.length <= 3) {
          clock += 46_000;
          undiciTimers.tick(0);
          undiciTimers.tick(46_000);
          await pause(20);
        }
        stop.abort(new Error("still following"));
        await followed;
        expect(outcome).toMatchObject({ code: "timeout" });
        expect(statuses(seen)).toEqual(["running"]);
        expect(requests).toHaveLength(2);
        expect(retries.map(({ retry, error }) => [retry, error.code])).toEqual([[1, "timeout"]]);
      } finally {
        now.mockRestore();
        await client.close();
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
    });
  }

  it("throws connection_error once maxRetries streams in a row were cut without a new event", async () => {
    const fake = await fakeServer(() => ({ events: statusEvent(running), after: "cut" }));
    const seen: ExecuteStreamEvent[] = [];
    const retries: RetryEvent[] = [];
    const onRetry = (event: RetryEvent) => retries.push(event);
    const err = await withClient(fake, { maxRetries: 1, onRetry }, async (client) => {
      const followed = (async () => {
        for await (const event of client.executionEvents(running.id)) seen.push(event);
      })();
      return rejectionOf(followed);
    });
    expect(err.code).toBe("connection_error");
    // The first stream and one more; the repeated running record is not given twice.
    expect(fake.requests).toHaveLength(2);
    expect(statuses(seen)).toEqual(["running"]);
    // onRetry hears of the one new stream, as of any retry.
    expect(retries.map(({ retry, error, method, path }) => [retry, error.code, method, path])).toEqual([
      [1, "connection_error", "GET", `/v1/executions/${running.id}/events`],
    ]);
  });

  // A proxy that ends (or cuts) every stream after a minute, during a run that says nothing
  // for minutes: each stream lived long, so none counts against maxRetries.
  it("keeps following through streams that each stayed open 30 s or more before they ended or were cut with nothing new", async () => {
    let clock = Date.now();
    const now = vi.spyOn(Date, "now").mockImplementation(() => clock);
    try {
      // Each stream ends (or is cut) a minute after it opened.
      const ending = () => {
        clock += 60_000;
      };
      const fake = await fakeServer((index) => {
        if (index === 5) return { events: statusEvent(completed), after: "end" };
        return { events: index === 0 ? statusEvent(running) : "", after: index % 2 ? "cut" : "end", ending };
      });
      const events = await withClient(fake, { maxRetries: 1 }, (client) =>
        collect(client.executionEvents(running.id)),
      );
      expect(statuses(events)).toEqual(["running", "completed"]);
      expect(fake.requests).toHaveLength(6);
    } finally {
      now.mockRestore();
    }
  }, 20_000);

  // Regression (session 32): a stream that ended at once, giving nothing new (a proxy or a
  // server that ends every stream), was opened again about once a second without end.
  it("throws unexpected_response once maxRetries streams in a row ended giving nothing new, waiting the retries' backoff before each", async () => {
    const fake = await fakeServer(() => ({ events: statusEvent(running), after: "end" }));
    const seen: ExecuteStreamEvent[] = [];
    const retries: RetryEvent[] = [];
    const onRetry = (event: RetryEvent) => retries.push(event);
    // The longest wait the backoff's jitter allows.
    const random = vi.spyOn(Math, "random").mockReturnValue(0.999);
    try {
      const err = await withClient(fake, { maxRetries: 3, onRetry }, async (client) => {
        const followed = (async () => {
          for await (const event of client.executionEvents(running.id)) seen.push(event);
        })();
        return rejectionOf(followed);
      });
      expect(err.code).toBe("unexpected_response");
      expect(err.message).toBe(
        `The event stream of execution ${running.id} ended 4 times in a row before the final status, with no new event.`,
      );
    } finally {
      random.mockRestore();
    }
    // The first stream gave the running record: the second is no retry. Then three more.
    expect(fake.requests).toHaveLength(5);
    expect(statuses(seen)).toEqual(["running"]);
    expect(retries.map(({ retry, error }) => [retry, error.code])).toEqual([
      [1, "unexpected_response"],
      [2, "unexpected_response"],
      [3, "unexpected_response"],
    ]);
    // A second at least between two streams, and the backoff's 1–2 s before the third retry.
    expect(retries.map(({ delayMs }) => delayMs >= 900)).toEqual([true, true, true]);
    expect(retries[2]?.delayMs).toBe(1_999);
  }, 20_000);
});
