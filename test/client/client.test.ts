import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExecutionEvent,
  type ExecutionRecord,
  Skillport,
  SkillportError,
} from "../../src/client/index.js";
import { type CreatedKey, expectIsoTimestamp, serverForSuite } from "../contract/harness.js";
import { collect, rejectionOf } from "./support.js";

// Every method of `skillport/client` against the real built server.
describe("client: every method against the real server", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  let client: Skillport;
  let readOnly: Skillport;

  beforeAll(async () => {
    key = await server().createRoomyKey({ owner: "client-methods" });
    const readOnlyKey = await server().createRoomyKey({ scope: "read-only", owner: "client-methods" });
    client = new Skillport({ apiKey: key.secret, baseUrl: server().baseUrl });
    readOnly = new Skillport({ apiKey: readOnlyKey.secret, baseUrl: server().baseUrl });
  });
  afterAll(async () => {
    await Promise.all([client?.close(), readOnly?.close()]);
  });

  it("discover ranks skills for a query and gives each one's params schema", async () => {
    const found = await client.discover({ query: "send a message to a channel", limit: 3 });
    expect(found.query).toBe("send a message to a channel");
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results.length).toBeLessThanOrEqual(3);
    expect(found.results[0]?.skill_id).toBe("message.send");
    expect(found.results[0]?.params).toMatchObject({ type: "object" });
    expect(typeof found.took_ms).toBe("number");
  });

  it("discover works with a read-only key", async () => {
    const found = await readOnly.discover({ query: "evaluate a math expression", tags: ["math"] });
    expect(found.results.map((result) => result.skill_id)).toContain("math.evaluate");
  });

  it("execute runs a skill synchronously and resolves with the completed record", async () => {
    const record = await client.execute({ skill_id: "math.evaluate", params: { expression: "2^10" } });
    expect(record).toMatchObject({
      skill_id: "math.evaluate",
      status: "completed",
      success: true,
      error: null,
    });
    expect(record.result).toMatchObject({ value: 1024 });
    expect(record.id).toMatch(/^exec_/);
    expectIsoTimestamp(record.created_at);
  });

  it("execute resolves a failed execution as a record with success false", async () => {
    const record = await client.execute({ skill_id: "math.evaluate", params: { expression: "2+*3" } });
    expect(record).toMatchObject({ status: "failed", success: false, result: null });
    expect(record.error?.code).toBe("execution_failed");
  });

  it("execute with throwOnFailure throws the record's error code and carries the record", async () => {
    const error = await rejectionOf(
      client.execute({ skill_id: "math.evaluate", params: { expression: "4+" } }, { throwOnFailure: true }),
    );
    expect(error.code).toBe("execution_failed");
    expect(error.status).toBeUndefined();
    expect(error.execution?.status).toBe("failed");
    expect(error.message).toBe(error.execution?.error?.message);
    expect(error.executionId).toBe(error.execution?.id);
  });

  it("execute with throwOnFailure resolves a successful record", async () => {
    const record = await client.execute(
      { skill_id: "math.evaluate", params: { expression: "1+1" } },
      { throwOnFailure: true },
    );
    expect(record.success).toBe(true);
  });

  it("execute with a short timeout_ms resolves a timed_out record", async () => {
    const record = await client.execute({ skill_id: "util.wait", params: { ms: 10_000 }, timeout_ms: 50 });
    expect(record).toMatchObject({ status: "timed_out", success: false });
    expect(record.error?.code).toBe("execution_timeout");
  });

  it("execute with async returns the queued record at once; waitForExecution long-polls it to the end", async () => {
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 300 }, async: true });
    expect(["queued", "running"]).toContain(queued.status);
    const finished = await client.waitForExecution(queued.id);
    expect(finished).toMatchObject({ id: queued.id, status: "completed", success: true });
    expect(finished.result).toMatchObject({ waited_ms: 300 });
  });

  it("a caller's own Idempotency-Key returns the first record instead of running again", async () => {
    const idempotencyKey = `client-test-${Date.now()}`;
    const body = { skill_id: "message.send", params: { channel: "idem", text: "once" } };
    const first = await client.execute(body, { idempotencyKey });
    const second = await client.execute(body, { idempotencyKey });
    expect(second.id).toBe(first.id);
    expect(second).toEqual(first);
  });

  it("getExecution returns a record; with waitSeconds it holds until the record is terminal", async () => {
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 400 }, async: true });
    const finished = await client.getExecution(queued.id, { waitSeconds: 30 });
    expect(finished).toMatchObject({ id: queued.id, status: "completed" });
    const again = await client.getExecution(queued.id);
    expect(again).toEqual(finished);
  });

  it("waitForExecution rejects with code timeout at its deadline", async () => {
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 20_000 }, async: true });
    const err = await rejectionOf(client.waitForExecution(queued.id, { timeoutMs: 300 }));
    expect(err).toBeInstanceOf(SkillportError);
    expect(err.code).toBe("timeout");
    await client.cancelExecution(queued.id);
  });

  it("waitForExecution ends with the caller's abort reason, and lets go of the caller's signal", async () => {
    const shutdown = new AbortController(); // an application's signal, outliving each wait
    const done = await client.execute({ skill_id: "math.evaluate", params: { expression: "1" } });
    for (let i = 0; i < 3; i++) await client.waitForExecution(done.id, { signal: shutdown.signal });
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);

    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 20_000 }, async: true });
    const reason = new Error("shutting down");
    const waiting = client.waitForExecution(queued.id, { signal: shutdown.signal });
    setTimeout(() => shutdown.abort(reason), 100);
    await expect(waiting).rejects.toBe(reason);
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
    await client.cancelExecution(queued.id);
  });

  it("waitForExecution with throwOnFailure throws for a cancelled execution", async () => {
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 20_000 }, async: true });
    const waiting = rejectionOf(client.waitForExecution(queued.id, { throwOnFailure: true }));
    const cancelled = await client.cancelExecution(queued.id);
    expect(cancelled).toMatchObject({ id: queued.id, status: "cancelled", success: false });
    const err = await waiting;
    expect(err.code).toBe("execution_cancelled");
    expect(err.execution?.id).toBe(queued.id);
  });

  it("cancelExecution of a finished execution throws the server's 409 unchanged", async () => {
    const done = await client.execute({ skill_id: "math.evaluate", params: { expression: "1" } });
    const err = await rejectionOf(client.cancelExecution(done.id));
    expect(err).toBeInstanceOf(SkillportError);
    expect(err.status).toBe(409);
    expect(err.code).toBe("execution_not_cancellable");
    expect(err.requestId).toMatch(/\S/);
    expect(err.body).toEqual({ code: err.code, message: err.message, request_id: err.requestId });
  });

  it("listExecutions iterates every page, newest first, with filters", async () => {
    const owner = await server().createRoomyKey({ owner: "client-lister" });
    const lister = new Skillport({ apiKey: owner.secret, baseUrl: server().baseUrl });
    try {
      const made: ExecutionRecord[] = [];
      for (const expression of ["1", "2", "3", "4", "5"]) {
        made.push(await lister.execute({ skill_id: "math.evaluate", params: { expression } }));
      }
      await lister.execute({ skill_id: "message.send", params: { channel: "c", text: "other skill" } });
      const pages = await collect(lister.listExecutions({ skill_id: "math.evaluate", limit: 2 }));
      expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
      expect(pages.at(-1)?.next_cursor).toBeNull();
      const ids = pages.flatMap((page) => page.data.map((record) => record.id));
      expect(ids).toEqual(made.map((record) => record.id).reverse());
      const completed = await collect(lister.listExecutions({ status: "completed", limit: 100 }));
      expect(completed.flatMap((page) => page.data)).toHaveLength(6);
    } finally {
      await lister.close();
    }
  });

  it("executionEvents streams status and progress events and ends after the terminal status", async () => {
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 2_500 }, async: true });
    const events = await collect(client.executionEvents(queued.id));
    const statuses = events.flatMap((event) => (event.type === "status" ? [event.record.status] : []));
    expect(statuses.at(-1)).toBe("completed");
    expect(statuses.slice(0, -1).every((status) => status === "queued" || status === "running")).toBe(true);
    const progress = events.filter((event) => event.type === "progress");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ type: "progress", execution_id: queued.id });
    const last = events.at(-1) as Extract<ExecutionEvent, { type: "status" }>;
    expect(last.record.result).toMatchObject({ waited_ms: 2_500 });
  });

  it("leaving executionEvents early closes the stream and leaves the client usable", async () => {
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 20_000 }, async: true });
    for await (const event of client.executionEvents(queued.id)) {
      expect(event.type).toBe("status");
      break;
    }
    const cancelled = await client.cancelExecution(queued.id);
    expect(cancelled.status).toBe("cancelled");
  });

  it("executionEvents of an unknown execution throws execution_not_found", async () => {
    const err = await rejectionOf(collect(client.executionEvents("exec_doesnotexist")));
    expect(err.status).toBe(404);
    expect(err.code).toBe("execution_not_found");
  });

  it("listSkills iterates the whole catalog page by page", async () => {
    const pages = await collect(readOnly.listSkills({ limit: 5 }));
    expect(pages.length).toBeGreaterThan(1);
    const ids = pages.flatMap((page) => page.data.map((skill) => skill.skill_id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining(["math.evaluate", "message.send", "util.wait", "http.request"]),
    );
    const all = await collect(readOnly.listSkills());
    expect(all.flatMap((page) => page.data.map((skill) => skill.skill_id))).toEqual(ids);
  });

  it("getSkill returns one skill with its schemas and annotations", async () => {
    const skill = await readOnly.getSkill("message.send");
    expect(skill.skill_id).toBe("message.send");
    expect(skill.params).toMatchObject({ type: "object" });
    expect(skill.result).toMatchObject({ type: "object" });
    expect(skill.annotations).toMatchObject({ readOnly: false });
  });

  it("passes the server's error code, message, details and request id through unchanged", async () => {
    const err = await rejectionOf(client.execute({ skill_id: "math.evaluate", params: { expression: 42 } }));
    expect(err).toBeInstanceOf(SkillportError);
    expect(err.status).toBe(422);
    expect(err.code).toBe("invalid_params");
    expect(err.details?.[0]?.path).toBe("expression");
    expect(err.body).toEqual({
      code: "invalid_params",
      message: err.message,
      details: err.details,
      request_id: err.requestId,
    });
    const missing = await rejectionOf(readOnly.getSkill("no.such.skill"));
    expect([missing.status, missing.code]).toEqual([404, "skill_not_found"]);
  });

  it("a timeout_ms or waitSeconds that is NaN or negative is refused as such, not answered as a timeout after NaN ms", async () => {
    for (const timeout_ms of [Number.NaN, -5]) {
      const err = await rejectionOf(
        client.execute({ skill_id: "math.evaluate", params: { expression: "1" }, timeout_ms }),
      );
      expect([err.status, err.code, err.details?.[0]?.path], String(timeout_ms)).toEqual([
        400,
        "invalid_request",
        "timeout_ms",
      ]);
    }
    for (const waitSeconds of [Number.NaN, -1]) {
      await expect(client.getExecution("exec_any", { waitSeconds }), String(waitSeconds)).rejects.toThrow(
        RangeError,
      );
    }
  });

  it("execute or executeStream given no request (JavaScript) is refused by the server in its words, as discover is", async () => {
    for (const call of [
      () => client.execute(undefined as never),
      () => collect(client.executeStream(undefined as never)),
    ]) {
      const err = await rejectionOf(call());
      expect([err.status, err.code]).toEqual([400, "invalid_request"]);
      expect(err.message).toMatch(/^The request body is empty: POST \/v1\/execute takes a JSON object/);
    }
  });

  it("refuses an idempotency key an HTTP header cannot carry intact before sending it", async () => {
    for (const idempotencyKey of ["ключ", " k", "a\nb"]) {
      await expect(
        client.execute({ skill_id: "math.evaluate", params: { expression: "1" } }, { idempotencyKey }),
      ).rejects.toThrow(/idempotencyKey must be 1 to 255 printable ASCII characters/);
    }
  });

  it("a read-only key is refused execution with the server's 403", async () => {
    const err = await rejectionOf(
      readOnly.execute({ skill_id: "math.evaluate", params: { expression: "1" } }),
    );
    expect([err.status, err.code]).toEqual([403, "insufficient_scope"]);
  });

  it("a call's AbortSignal rejects it with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const running = client.execute(
      { skill_id: "util.wait", params: { ms: 2_000 } },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(reason), 100);
    await expect(running).rejects.toBe(reason);
  });
});
