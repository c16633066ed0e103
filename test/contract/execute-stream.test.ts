import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awayFromMinuteBoundary,
  type CreatedKey,
  type ExecutionRecord,
  expectError,
  type Json,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

interface StreamedEvent {
  event: string;
  data: Json;
}

/** An open event stream of `POST /v1/execute`, read event by event. */
interface ExecuteStream {
  status: number;
  headers: Headers;
  /** The next event; undefined once the stream ended. */
  next(): Promise<StreamedEvent | undefined>;
  /** Every event left, to the end of the stream. */
  rest(): Promise<StreamedEvent[]>;
}

const STREAM = { accept: "text/event-stream" };

// contract.md, "POST /v1/execute" with `Accept: text/event-stream` (README, REST): one
// request that runs a sync execution and answers with its events.
describe("contract: POST /v1/execute streaming its events", () => {
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey({ name: "stream", owner: "stream-owner" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  async function openStream(
    json: unknown,
    headers: Record<string, string> = {},
    secret = key.secret,
  ): Promise<ExecuteStream> {
    const res = await fetch(`${server.baseUrl}/v1/execute`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        ...STREAM,
        ...headers,
      },
      body: JSON.stringify(json),
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
      throw new Error(`not a stream: ${res.status} ${await res.text()}`);
    }
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const next = async (): Promise<StreamedEvent | undefined> => {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) return { event, data: JSON.parse(data) as Json };
          continue;
        }
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return undefined;
        buffered += chunk.value;
      }
    };
    const rest = async () => {
      const events: StreamedEvent[] = [];
      for (let event = await next(); event; event = await next()) events.push(event);
      return events;
    };
    return { status: res.status, headers: res.headers, next, rest };
  }

  const recordOf = (event: StreamedEvent | undefined) => event?.data as unknown as ExecutionRecord;

  it("answers with the stored running record first, then progress, and ends with the terminal record", async () => {
    const stream = await openStream({ skill_id: "util.wait", params: { ms: 1_200 } });
    expect(stream.status).toBe(200);
    const events = [await stream.next(), ...(await stream.rest())];
    expect(events.map((e) => e?.event)).toEqual(["status", "progress", "progress", "status"]);
    const first = recordOf(events[0]);
    expect(first).toMatchObject({ skill_id: "util.wait", status: "running", finished_at: null });
    expect(events[1]?.data).toMatchObject({ execution_id: first.id, total: 1_200 });
    const last = recordOf(events.at(-1));
    expect(last).toMatchObject({
      id: first.id,
      status: "completed",
      success: true,
      result: { waited_ms: 1_200 },
    });
    // The same record as the resource, which the stream's events are those of.
    const stored = await server.request("GET", `/v1/executions/${first.id}`, { key: key.secret });
    expect(stored.body).toEqual(last);
  });

  it("names the execution in its first event, so that it can be cancelled at once", async () => {
    const stream = await openStream({ skill_id: "util.wait", params: { ms: 20_000 } });
    const first = recordOf(await stream.next());
    const cancel = await server.request("POST", `/v1/executions/${first.id}/cancel`, { key: key.secret });
    expect(cancel.status, cancel.text).toBe(200);
    const last = recordOf((await stream.rest()).at(-1));
    expect(last).toMatchObject({ id: first.id, status: "cancelled", error: { code: "execution_cancelled" } });
  });

  it("counts once against the key's limits, as a sync execute does", async () => {
    const limited = await server.createKey({
      name: "counted",
      plan: "enterprise",
      limitMinute: 50,
      limitDay: 10_000,
    });
    await awayFromMinuteBoundary(10);
    const remaining = async () =>
      Number(
        (await server.request("GET", "/v1/skills?limit=1", { key: limited.secret })).headers.get(
          "x-ratelimit-remaining",
        ),
      );
    const before = await remaining();
    const stream = await openStream({ skill_id: "util.wait", params: { ms: 1_200 } }, {}, limited.secret);
    expect(Number(stream.headers.get("x-ratelimit-remaining"))).toBe(before - 1);
    expect((await stream.rest()).at(-1)?.data).toMatchObject({ status: "completed" });
    // The stream, progress and end included, was one request: the next is the second since.
    expect(await remaining()).toBe(before - 2);
  });

  it("answers every refusal before the run as the same JSON error as without the stream", async () => {
    const readOnly = await server.createRoomyKey({ name: "stream-read-only", scope: "read-only" });
    const cases: [body: unknown, status: number, code: string, secret?: string][] = [
      [{ skill_id: "util.wait", params: { ms: 1 } }, 403, "insufficient_scope", readOnly.secret],
      [{ skill_id: "util.wait", params: { ms: 1 } }, 401, "invalid_api_key", "sk_live_not-a-key"],
      [{ skill_id: "no.such.skill", params: {} }, 404, "skill_not_found"],
      [{ skill_id: "util.wait", params: { ms: "x" } }, 422, "invalid_params"],
      [{ skill_id: "util.wait", params: { ms: 1 }, timeout_ms: 0 }, 400, "invalid_request"],
    ];
    for (const [json, status, code, secret = key.secret] of cases) {
      const res = await server.request("POST", "/v1/execute", { key: secret, json, headers: STREAM });
      expect(res.headers.get("content-type"), res.text).toMatch(/^application\/json/);
      expectError(res, status, code);
    }
  });

  // Audit 25 #1: any Accept naming text/event-stream (q > 0) streamed, even one preferring
  // JSON or liking both equally, as MCP-style clients send on every request; and with
  // async: true it was a 400 for a request with nothing wrong in it.
  it("answers the record to an Accept that prefers JSON or likes both equally, and streams only when the stream is preferred", async () => {
    const body = { skill_id: "util.wait", params: { ms: 1 } };
    const json = [
      "application/json, text/event-stream",
      "text/event-stream, application/json",
      "application/json;q=1, text/event-stream;q=0.1",
      "text/event-stream;q=0.5, */*;q=0.5",
      "text/event-stream;q=0.9, application/*",
      "text/event-stream;q=0",
      "*/*",
    ];
    for (const accept of json) {
      const res = await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: body,
        headers: { accept },
      });
      expect(res.status, `${accept}: ${res.text}`).toBe(200);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
      expect(res.body, accept).toMatchObject({ status: "completed", result: { waited_ms: 1 } });
    }
    for (const accept of ["text/event-stream;q=1, application/json;q=0.9", "text/event-stream, */*;q=0.1"]) {
      const stream = await openStream(body, { accept });
      expect((await stream.rest()).at(-1)?.data, accept).toMatchObject({ status: "completed" });
    }
  });

  it("answers async: true with 202 and the queued record whatever Accept says", async () => {
    for (const accept of ["text/event-stream", "application/json, text/event-stream"]) {
      const res = await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "util.wait", params: { ms: 1 }, async: true },
        headers: { accept },
      });
      expect(res.status, `${accept}: ${res.text}`).toBe(202);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
      const record = res.body as ExecutionRecord;
      expect(record.status, accept).toBe("queued");
      expect(res.headers.get("location")).toBe(`/v1/executions/${record.id}`);
    }
  });

  it("replays an Idempotency-Key as a sync execute does: the stored terminal record, and the skill not run again", async () => {
    const headers = { "idempotency-key": `stream-${Date.now()}` };
    const body = { skill_id: "util.wait", params: { ms: 10 } };
    const first = await openStream(body, headers);
    const ended = recordOf((await first.rest()).at(-1));
    expect(ended.status).toBe("completed");
    const repeat = await openStream(body, headers);
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    const replayed = await repeat.rest();
    expect(replayed.map((e) => e.event)).toEqual(["status"]);
    expect(recordOf(replayed[0])).toEqual(ended);
    // A sync execute with the same key and body is answered from the same execution.
    const sync = await server.request("POST", "/v1/execute", { key: key.secret, json: body, headers });
    expect(sync.body).toEqual(ended);
    const reused = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { ...body, params: { ms: 11 } },
      headers: { ...headers, ...STREAM },
    });
    expectError(reused, 422, "idempotency_key_reused");
  });

  it("follows the first execution when a repeat with its Idempotency-Key arrives while it runs", async () => {
    const headers = { "idempotency-key": `stream-running-${Date.now()}` };
    const body = { skill_id: "util.wait", params: { ms: 1_500 } };
    const first = await openStream(body, headers);
    const started = recordOf(await first.next());
    const repeat = await openStream(body, headers);
    const events = await repeat.rest();
    expect(recordOf(events[0])).toMatchObject({ id: started.id, status: "running" });
    expect(recordOf(events.at(-1))).toMatchObject({ id: started.id, status: "completed" });
    expect(recordOf((await first.rest()).at(-1))).toEqual(recordOf(events.at(-1)));
  });

  it("is described in /v1/openapi.json: the Accept header and the event stream beside the record", async () => {
    const doc = (await server.request("GET", "/v1/openapi.json")).body as {
      paths: Record<string, { post?: { parameters: { name: string }[]; responses: Record<string, Json> } }>;
    };
    const execute = doc.paths["/v1/execute"]?.post;
    expect(execute?.parameters.map((p) => p.name)).toContain("Accept");
    expect(Object.keys(execute?.responses["200"]?.content as Json)).toEqual([
      "application/json",
      "text/event-stream",
    ]);
    const validator = new Validator();
    expect(await validator.validate(doc)).toEqual({ valid: true });
  });
});
