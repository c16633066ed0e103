import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ErrorBody,
  type ExecutionRecord,
  expectError,
  expectIsoTimestamp,
  type Json,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

const TERMINAL = ["completed", "failed", "timed_out", "cancelled"];

/** Fields every record has, whatever its status (contract.md, "Execution record"). */
function expectRecordShape(record: ExecutionRecord): void {
  expect(record.id).toMatch(/^\S+$/);
  expect(record.skill_id).toBeTypeOf("string");
  expect(["queued", "running", ...TERMINAL]).toContain(record.status);
  expect(record.success).toBe(record.status === "completed");
  expectIsoTimestamp(record.created_at);
  if (TERMINAL.includes(record.status)) {
    expectIsoTimestamp(record.finished_at);
    if (record.status === "completed") {
      expect(record.error).toBeNull();
      expect(record.result).toBeTypeOf("object");
      expect(record.result).not.toBeNull();
    } else {
      expect(record.result).toBeNull();
      expect(record.error?.code).toBeTypeOf("string");
      expect(record.error?.message).toBeTypeOf("string");
    }
  } else {
    expect(record.finished_at).toBeNull();
    expect(record.result).toBeNull();
  }
}

// contract.md, "POST /v1/execute" and "Execution record".
describe("contract: POST /v1/execute", () => {
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey({ name: "execute", owner: "exec-owner" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  const execute = (json: unknown, headers?: Record<string, string>, secret = key.secret) =>
    server.request("POST", "/v1/execute", { key: secret, json, headers });
  const getRecord = async (id: string, query = "", secret = key.secret) => {
    const res = await server.request("GET", `/v1/executions/${id}${query}`, { key: secret });
    expect(res.status, res.text).toBe(200);
    return bodyOf<ExecutionRecord>(res);
  };

  it("runs synchronously by default: 200 with the completed record", async () => {
    const res = await execute({ skill_id: "math.evaluate", params: { expression: "2^10" } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const record = bodyOf<ExecutionRecord>(res);
    expectRecordShape(record);
    expect(record).toMatchObject({
      skill_id: "math.evaluate",
      status: "completed",
      success: true,
      error: null,
    });
    expect(record.latency_ms).toBeTypeOf("number");
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
    expect(record.result?.value).toBe(1024);
    expectIsoTimestamp(record.started_at);
    expectIsoTimestamp(record.finished_at);
    expect(Date.parse(record.created_at)).toBeLessThanOrEqual(Date.parse(record.started_at ?? ""));
    expect(Date.parse(record.started_at ?? "")).toBeLessThanOrEqual(Date.parse(record.finished_at ?? ""));
    // The record stays readable.
    expect(await getRecord(record.id)).toEqual(record);
  });

  it("completes a burst of 200 concurrent executions of one pro key (within its limits)", async () => {
    const pro = await server.createKey({ name: "burst", plan: "pro" });
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const res = await server.request("POST", "/v1/execute", {
          key: pro.secret,
          json: { skill_id: "math.evaluate", params: { expression: "2+2" } },
        });
        return res.status === 200 ? bodyOf<ExecutionRecord>(res).status : `${res.status} ${res.text}`;
      }),
    );
    expect(statuses.filter((status) => status !== "completed")).toEqual([]);
  });

  it("async: false is the same as omitting it", async () => {
    const res = await execute({ skill_id: "math.evaluate", params: { expression: "1+1" }, async: false });
    expect(res.status).toBe(200);
    expect(bodyOf<ExecutionRecord>(res).status).toBe("completed");
  });

  it("message.send answers a message_id string and a status string", async () => {
    const res = await execute({ skill_id: "message.send", params: { channel: "general", text: "hello" } });
    expect(res.status, res.text).toBe(200);
    const record = bodyOf<ExecutionRecord>(res);
    expectRecordShape(record);
    expect(record.status).toBe("completed");
    expect(record.result?.message_id).toBeTypeOf("string");
    expect(record.result?.status).toBeTypeOf("string");
  });

  it("a failing skill is a 200 with a failed record (success:false, execution_failed), not an HTTP error", async () => {
    const res = await execute({ skill_id: "math.evaluate", params: { expression: "2+*3" } });
    expect(res.status, res.text).toBe(200);
    const record = bodyOf<ExecutionRecord>(res);
    expectRecordShape(record);
    expect(record).toMatchObject({ status: "failed", success: false, result: null });
    expect(record.error?.code).toBe("execution_failed");
    expect(record.error?.message.length).toBeGreaterThan(0);
    expect(record.error?.message).not.toMatch(/\bat .+:\d+:\d+|node_modules/);
    expect(record.latency_ms).toBeTypeOf("number");
  });

  it("async: true answers 202 at once with Location, and the record completes", async () => {
    const res = await execute({ skill_id: "util.wait", params: { ms: 300 }, async: true });
    expect(res.status, res.text).toBe(202);
    const record = bodyOf<ExecutionRecord>(res);
    expectRecordShape(record);
    expect(["queued", "running"]).toContain(record.status);
    expect(record.success).toBe(false);
    expect(res.headers.get("location")).toBe(`/v1/executions/${record.id}`);
    const done = await getRecord(record.id, "?wait=10");
    expectRecordShape(done);
    expect(done).toMatchObject({ id: record.id, status: "completed", success: true });
    expect(done.result).toEqual({ waited_ms: 300 });
    expect(done.created_at).toBe(record.created_at);
  });

  it("the Location of a 202 is a URL that resolves to the record", async () => {
    const res = await execute({ skill_id: "math.evaluate", params: { expression: "3*3" }, async: true });
    const location = res.headers.get("location") ?? "";
    const followed = await server.request("GET", `${location}?wait=10`, { key: key.secret });
    expect(followed.status).toBe(200);
    expect(bodyOf<ExecutionRecord>(followed)).toMatchObject({ status: "completed", result: { value: 9 } });
  });

  it("a sync execution past timeout_ms ends timed_out with execution_timeout, well before the skill would have", async () => {
    const started = Date.now();
    const res = await execute({ skill_id: "util.wait", params: { ms: 5000 }, timeout_ms: 200 });
    const elapsedMs = Date.now() - started;
    expect(res.status, res.text).toBe(200);
    const record = bodyOf<ExecutionRecord>(res);
    expectRecordShape(record);
    expect(record).toMatchObject({ status: "timed_out", success: false, result: null });
    expect(record.error?.code).toBe("execution_timeout");
    expect(elapsedMs).toBeLessThan(4000);
  });

  it("an async execution past timeout_ms ends timed_out", async () => {
    const res = await execute({ skill_id: "util.wait", params: { ms: 5000 }, timeout_ms: 200, async: true });
    expect(res.status).toBe(202);
    const done = await getRecord(bodyOf<ExecutionRecord>(res).id, "?wait=10");
    expect(done.status).toBe("timed_out");
    expect(done.error?.code).toBe("execution_timeout");
  });

  it("cancels a running async execution; cancelling it again is 409 execution_not_cancellable", async () => {
    const started = Date.now();
    const res = await execute({ skill_id: "util.wait", params: { ms: 30_000 }, async: true });
    expect(res.status).toBe(202);
    const { id } = bodyOf<ExecutionRecord>(res);
    const cancel = await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
    expect(cancel.status, cancel.text).toBe(200);
    const cancelled = bodyOf<ExecutionRecord>(cancel);
    expectRecordShape(cancelled);
    expect(cancelled).toMatchObject({ id, status: "cancelled", success: false, result: null });
    expect(cancelled.error?.code).toBe("execution_cancelled");
    expect(Date.now() - started).toBeLessThan(20_000);
    // Terminal records never change.
    expect(await getRecord(id)).toEqual(cancelled);
    expectError(
      await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret }),
      409,
      "execution_not_cancellable",
    );
  });

  it("cancels when the client declares a JSON body it does not send (as the README's curl examples do)", async () => {
    const res = await execute({ skill_id: "util.wait", params: { ms: 30_000 }, async: true });
    const { id } = bodyOf<ExecutionRecord>(res);
    const withoutBody = () =>
      server.request("POST", `/v1/executions/${id}/cancel`, {
        key: key.secret,
        rawBody: "",
        contentType: "application/json",
      });
    const cancel = await withoutBody();
    expect(cancel.status, cancel.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(cancel)).toMatchObject({ id, status: "cancelled" });
    expectError(await withoutBody(), 409, "execution_not_cancellable");
  });

  // contract.md: ?wait holds the request "until the record is terminal or N seconds pass".
  it("a long poll answers as soon as the record is terminal, not when ?wait runs out", async () => {
    const res = await execute({ skill_id: "util.wait", params: { ms: 500 }, async: true });
    const { id } = bodyOf<ExecutionRecord>(res);
    const started = Date.now();
    const record = await getRecord(id, "?wait=15");
    expect(record).toMatchObject({ id, status: "completed" });
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it("a long poll returns a still-running record when ?wait runs out", async () => {
    const res = await execute({ skill_id: "util.wait", params: { ms: 10_000 }, async: true });
    const { id } = bodyOf<ExecutionRecord>(res);
    const started = Date.now();
    const record = await getRecord(id, "?wait=1");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(["queued", "running"]).toContain(record.status);
    await server.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
  });

  it("refuses ?wait outside 0–60, or not in decimal digits", async () => {
    const res = await execute({ skill_id: "math.evaluate", params: { expression: "1" } });
    const { id } = bodyOf<ExecutionRecord>(res);
    for (const wait of ["61", "-1", "abc", "0x10", "1e1", "1.5", ""]) {
      expectError(
        await server.request("GET", `/v1/executions/${id}?wait=${wait}`, { key: key.secret }),
        400,
        "invalid_request",
      );
    }
    // Audit 25, nit: past 2^53 the message named zod's safe-integer bound, not the range.
    for (const wait of ["61", "99999999999999999999"]) {
      const res = await server.request("GET", `/v1/executions/${id}?wait=${wait}`, { key: key.secret });
      expectError(res, 400, "invalid_request");
      const { error } = bodyOf<ErrorBody>(res);
      expect(error.message, wait).toBe("wait: must be at most 60");
      expect(error.details, wait).toEqual([{ path: "wait", message: "must be at most 60" }]);
    }
    expect(
      bodyOf<ErrorBody>(
        await server.request("GET", `/v1/executions/${id}?wait=-99999999999999999999`, { key: key.secret }),
      ).error.message,
    ).toBe("wait: must be at least 0");
  });

  it("messages belong to the key's owner: another owner's message.list does not see them", async () => {
    const other = await server.createRoomyKey({ name: "execute-other", owner: "someone-else" });
    const channel = `private-${Date.now()}`;
    const sent = await execute({ skill_id: "message.send", params: { channel, text: "for my owner only" } });
    expect(bodyOf<ExecutionRecord>(sent).status).toBe("completed");
    const theirs = await execute({ skill_id: "message.list", params: { channel } }, undefined, other.secret);
    expect(bodyOf<ExecutionRecord>(theirs).result?.count).toBe(0);
    const mine = await execute({ skill_id: "message.list", params: { channel } });
    expect(bodyOf<ExecutionRecord>(mine).result?.count).toBe(1);
  });

  it("http.request refuses the server's own host, other loopback spellings, metadata addresses and non-http schemes", async () => {
    const { port } = new URL(server.baseUrl);
    const urls = [
      `${server.baseUrl}/healthz`,
      `http://localhost:${port}/healthz`,
      `http://[::1]:${port}/healthz`,
      `http://127.1:${port}/healthz`,
      `http://2130706433:${port}/healthz`,
      `http://[::ffff:127.0.0.1]:${port}/healthz`,
      `http://0.0.0.0:${port}/healthz`,
      "http://169.254.169.254/latest/meta-data/",
      "file:///etc/passwd",
    ];
    for (const url of urls) {
      const res = await execute({ skill_id: "http.request", params: { url }, timeout_ms: 10_000 });
      if (res.status === 422) continue; // refused by the params schema: refused all the same
      expect(res.status, `${url}: ${res.text}`).toBe(200);
      const record = bodyOf<ExecutionRecord>(res);
      expect(record.status, `${url}: ${res.text}`).toBe("failed");
      expect(record.error?.code).toBe("execution_failed");
      expect(record.result).toBeNull();
    }
  });

  describe("Idempotency-Key", () => {
    it("a repeat with the same key and body returns the first record and runs the skill once", async () => {
      const channel = `idem-${Date.now()}`;
      const body = { skill_id: "message.send", params: { channel, text: "only once" } };
      const headers = { "idempotency-key": `send-${channel}` };
      const first = await execute(body, headers);
      const second = await execute(body, headers);
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(bodyOf<ExecutionRecord>(second)).toEqual(bodyOf<ExecutionRecord>(first));
      const list = await execute({ skill_id: "message.list", params: { channel } });
      const messages = bodyOf<ExecutionRecord>(list).result?.messages as Json[];
      expect(messages).toHaveLength(1);
      expect(messages[0]?.text).toBe("only once");
    });

    it("concurrent repeats with one Idempotency-Key run the skill once", async () => {
      const channel = `idem-race-${Date.now()}`;
      const body = { skill_id: "message.send", params: { channel, text: "raced" } };
      const headers = { "idempotency-key": `race-${channel}` };
      const responses = await Promise.all(Array.from({ length: 10 }, () => execute(body, headers)));
      const ids = new Set<string>();
      for (const res of responses) {
        if (res.status === 409) {
          expectError(res, 409, "idempotency_in_progress");
          continue;
        }
        expect(res.status, res.text).toBe(200);
        ids.add(bodyOf<ExecutionRecord>(res).id);
      }
      expect(ids.size).toBe(1);
      const list = await execute({ skill_id: "message.list", params: { channel } });
      expect(bodyOf<ExecutionRecord>(list).result?.count).toBe(1);
    });

    it("the same body with another key (or none) runs again", async () => {
      const channel = `idem-other-${Date.now()}`;
      const body = { skill_id: "message.send", params: { channel, text: "twice" } };
      const a = await execute(body, { "idempotency-key": `a-${channel}` });
      const b = await execute(body, { "idempotency-key": `b-${channel}` });
      const c = await execute(body);
      const ids = new Set([a, b, c].map((r) => bodyOf<ExecutionRecord>(r).id));
      expect(ids.size).toBe(3);
      const list = await execute({ skill_id: "message.list", params: { channel } });
      expect(bodyOf<ExecutionRecord>(list).result?.count).toBe(3);
    });

    it("the key's scope is the API key: another API key with the same Idempotency-Key runs its own", async () => {
      const other = await server.createRoomyKey({ name: "execute-2", owner: "exec-owner" });
      const body = { skill_id: "math.evaluate", params: { expression: "5+5" } };
      const headers = { "idempotency-key": "shared-name" };
      const first = bodyOf<ExecutionRecord>(await execute(body, headers));
      const second = bodyOf<ExecutionRecord>(await execute(body, headers, other.secret));
      expect(second.id).not.toBe(first.id);
    });

    // contract.md: "a repeat while the first is still running is 409 idempotency_in_progress",
    // async as sync (an async repeat used to answer 202 with the running record).
    it("an async repeat while its execution runs is 409 naming it; once it has ended, 202 with its record", async () => {
      const body = { skill_id: "util.wait", params: { ms: 1_000 }, async: true };
      const headers = { "idempotency-key": `async-${Date.now()}` };
      const first = await execute(body, headers);
      expect(first.status).toBe(202);
      const { id } = bodyOf<ExecutionRecord>(first);
      const second = await execute(body, headers);
      expectError(second, 409, "idempotency_in_progress");
      expect(bodyOf<{ error: { execution_id: string } }>(second).error.execution_id).toBe(id);
      await getRecord(id, "?wait=10");
      const third = await execute(body, headers);
      expect(third.status).toBe(202);
      expect(third.headers.get("idempotent-replayed")).toBe("true");
      expect(third.headers.get("location")).toBe(`/v1/executions/${id}`);
      expect(bodyOf<ExecutionRecord>(third)).toMatchObject({ id, status: "completed" });
    });

    it("an async repeat sent as soon as a quick execution's 202 arrives answers 202 with its ended record", async () => {
      for (let i = 0; i < 10; i++) {
        const body = { skill_id: "math.evaluate", params: { expression: `${i} + 1` }, async: true };
        const headers = { "idempotency-key": `quick-${i}-${Date.now()}` };
        const first = await execute(body, headers);
        const second = await execute(body, headers);
        expect(first.status).toBe(202);
        expect(second.status, second.text).toBe(202);
        expect(bodyOf<ExecutionRecord>(second)).toMatchObject({
          id: bodyOf<ExecutionRecord>(first).id,
          status: "completed",
          result: { value: i + 1 },
        });
      }
    });

    it("a failed execution is replayed too (same status code, same record)", async () => {
      const body = { skill_id: "math.evaluate", params: { expression: "2+*3" } };
      const headers = { "idempotency-key": `failed-${Date.now()}` };
      const first = await execute(body, headers);
      const second = await execute(body, headers);
      expect(second.status).toBe(first.status);
      expect(bodyOf<ExecutionRecord>(second)).toEqual(bodyOf<ExecutionRecord>(first));
    });
  });
});
