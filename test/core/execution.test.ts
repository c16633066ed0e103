import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { canonicalJson } from "../../src/core/canonical-json.js";
import { ManualClock, systemClock } from "../../src/core/clock.js";
import { errorBody, type ServiceError } from "../../src/core/errors.js";
import type { ExecutionEvent } from "../../src/core/execution/events.js";
import type { StoredExecution } from "../../src/core/execution/record.js";
import { toBase62 } from "../../src/core/ids.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import type { Store } from "../../src/core/ports.js";
import { sensitive } from "../../src/core/skills/sensitive-params.js";
import { defineSkill } from "../../src/core/skills/skill.js";
import { abortControllersMadeBy } from "./abort-controllers.js";
import { type Core, makeCore } from "./make-core.js";
import { counts, keyed, latch, latchReleases, testSkills } from "./test-skills.js";

let core: Core;
let key: ApiKey;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

beforeEach(async () => {
  core = await makeCore(testSkills, { clock: systemClock, asyncConcurrency: 2 });
  key = await core.keyFor();
});
afterEach(() => core.cleanup());

/**
 * Replaces the test's core with one on a SQLite file, for a test that starts another core
 * on the data this one leaves (a restart); returns the data directory.
 */
async function coreOnSqlite(): Promise<string> {
  await core.cleanup();
  const sqlite = await makeCore(testSkills, { store: "sqlite", clock: systemClock, asyncConcurrency: 2 });
  core = sqlite;
  key = await core.keyFor();
  return sqlite.dir;
}

const run = (
  skill_id: string,
  params: Record<string, unknown>,
  extra: { async?: boolean; timeout_ms?: number } = {},
) => core.run(key, skill_id, params, extra);

describe("synchronous execution", () => {
  it("returns a completed, stored record with the skill's result", async () => {
    const { record, mode } = await run("test.echo", { text: "hi" });
    expect(mode).toBe("sync");
    expect(record).toMatchObject({
      skill_id: "test.echo",
      status: "completed",
      success: true,
      error: null,
      result: { text: "hi" },
    });
    expect(record.id).toMatch(/^exec_/);
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
    for (const at of [record.created_at, record.started_at, record.finished_at]) expect(at).toMatch(ISO_MS);
    expect((await core.skillport.store.executions.get(record.id))?.record).toEqual(record);
  });

  it("ends failed with the skill's own message when it refuses its input", async () => {
    const { record } = await run("test.fail", {});
    expect(record).toMatchObject({ status: "failed", success: false, result: null });
    expect(record.error).toEqual({ code: "execution_failed", message: "the input was not acceptable" });
  });

  it("hides an unexpected exception's internals from the caller", async () => {
    const { record } = await run("test.fail", { unexpected: true });
    expect(record.error?.code).toBe("execution_failed");
    expect(record.error?.message).not.toContain("/srv/secret");
    expect(record.error?.message).toContain("test.fail");
  });

  it("fails an execution whose result does not match the skill's result schema", async () => {
    const { record } = await run("test.bad_result", {});
    expect(record.status).toBe("failed");
    expect(record.error?.message).toMatch(/invalid result/);
  });

  it("keeps a result key named __proto__, in the answer and in the store, and pollutes no prototype", async () => {
    const keyedCore = await makeCore([keyed], { clock: systemClock });
    try {
      const keys = ["a", "__proto__", "constructor"];
      const { record } = await keyedCore.run(await keyedCore.keyFor(), "test.keyed", { keys });
      const entries = record.result?.entries as Record<string, unknown>;
      expect(Object.keys(entries)).toEqual(keys);
      expect(Object.getOwnPropertyDescriptor(entries, "__proto__")?.value).toEqual({ key: "__proto__" });
      expect(Object.getPrototypeOf(entries)).toBe(Object.prototype);
      expect(JSON.stringify(record.result)).toBe(
        '{"entries":{"a":{"key":"a"},"__proto__":{"key":"__proto__"},"constructor":{"key":"constructor"}}}',
      );
      const stored = (await keyedCore.skillport.store.executions.get(record.id))?.record;
      expect(JSON.stringify(stored?.result)).toBe(JSON.stringify(record.result));
      expect(Object.getPrototypeOf(stored?.result?.entries)).toBe(Object.prototype);
      expect(({} as { key?: unknown }).key).toBeUndefined();
    } finally {
      await keyedCore.cleanup();
    }
  });

  it("fails a result larger than 8 MiB of JSON, without expanding what it shares", async () => {
    // 2^40 copies of 1,000 characters: expanding them (a schema walk, JSON.stringify) never ends.
    const { record } = await run("test.doubling", { times: 40 });
    expect(record).toMatchObject({ status: "failed", result: null, error: { code: "execution_failed" } });
    expect(record.error?.message).toMatch(/larger than 8 MiB; ask for less/);
    const kept = await run("test.doubling", { times: 12 }); // about 4 MB
    expect(kept.record.status).toBe("completed");
  });

  it("ends timed_out when the timeout elapses, even if the skill ignores its signal", async () => {
    const started = Date.now();
    const { record } = await run("test.stubborn", { ms: 20_000 }, { timeout_ms: 50 });
    expect(record.status).toBe("timed_out");
    expect(record.error?.code).toBe("execution_timeout");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("gives a skill that copies its context every member of it", async () => {
    const { record } = await run("test.context_copy", {});
    expect(record).toMatchObject({
      status: "completed",
      result: { aborted: false, sent: "copied", remembered: "v" },
    });
  });

  it("makes no AbortController for a skill that never reads its signal, and one for a skill that does", async () => {
    expect(await abortControllersMadeBy(() => run("test.echo", { text: "hi" }))).toBe(0);
    const sleeping = await abortControllersMadeBy(async () => {
      expect((await run("test.sleep", { ms: 1 })).record.status).toBe("completed");
    });
    expect(sleeping).toBe(1);
  });

  it("refuses read-only keys, unknown skills and params that do not match the schema", async () => {
    const readOnly = await core.keyFor({ scope: "read-only" });
    await expect(
      core.skillport.executions.execute(readOnly, {
        skill_id: "test.echo",
        params: { text: "x" },
        async: false,
        timeout_ms: 1000,
      }),
    ).rejects.toMatchObject({ code: "insufficient_scope", status: 403 });
    await expect(run("nope.nothing", {})).rejects.toMatchObject({ code: "skill_not_found", status: 404 });
    await expect(run("test.echo", { text: 42 })).rejects.toMatchObject({
      code: "invalid_params",
      status: 422,
      details: [expect.objectContaining({ path: "text" })],
    });
  });
});

describe("params a skill does not take", () => {
  const loose = defineSkill({
    id: "test.loose",
    title: "Echo every member",
    description: "Answers with every member of its params, those it names and any other.",
    tags: ["test"],
    params: z.looseObject({ text: z.string() }),
    result: z.looseObject({}),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    examples: [],
    run: async (params) => params,
  });

  it("refuses a member the params schema does not name, each one at its own path", async () => {
    const refused = run("test.echo", { text: "x", txet: "y", "a.b": 1 });
    await expect(refused).rejects.toMatchObject({
      code: "invalid_params",
      status: 422,
      message: expect.stringMatching(/^txet: is not allowed here; did you mean "text"\?/),
      details: [
        { path: "txet", message: 'is not allowed here; did you mean "text"?' },
        { path: "a.b", message: expect.stringMatching(/^is not allowed here/) },
      ],
    });
    expect(core.skillport.catalog.get("test.echo").params).toMatchObject({ additionalProperties: false });
  });

  it("keeps other members for a skill that takes them", async () => {
    const looseCore = await makeCore([loose], { clock: systemClock });
    try {
      const { record } = await looseCore.run(await looseCore.keyFor(), "test.loose", { text: "x", other: 1 });
      expect(record.result).toEqual({ text: "x", other: 1 });
      expect(looseCore.skillport.catalog.get("test.loose").params).not.toHaveProperty(
        "additionalProperties",
        false,
      );
    } finally {
      await looseCore.cleanup();
    }
  });
});

// Regression (audit 26 F5): only the top level was strict, so a misnamed member of a nested
// object was dropped and its default used, without a word.
describe("params a skill does not take, inside nested objects", () => {
  const nested = defineSkill({
    id: "test.nested",
    title: "Nested options",
    description: "Answers with its text, upper-cased when its options say so, and its items' names.",
    tags: ["test"],
    params: z.object({
      text: z.string(),
      options: z
        .object({ upper: z.boolean().default(false).describe("Upper-case the text") })
        .default({ upper: false })
        .describe("How to answer"),
      items: z.array(z.object({ name: z.string() })).optional(),
      extra: z.record(z.string(), z.looseObject({ kept: z.string().optional() })).optional(),
      token: sensitive(z.object({ value: z.string() }), "value").optional(),
    }),
    result: z.looseObject({}),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    examples: [],
    run: async ({ text, options, items, extra }) => ({
      text: options.upper ? text.toUpperCase() : text,
      names: items?.map((item) => item.name) ?? [],
      extra: extra ?? {},
    }),
  });

  let nestedCore: Core;
  beforeEach(async () => {
    nestedCore = await makeCore([nested], { clock: systemClock });
  });
  afterEach(() => nestedCore.cleanup());
  const runNested = async (params: Record<string, unknown>) =>
    nestedCore.run(await nestedCore.keyFor(), "test.nested", params);

  it("refuses a misnamed member of a nested object, or of an array's objects, saying which it meant", async () => {
    await expect(runNested({ text: "abc", options: { uppercase: true } })).rejects.toMatchObject({
      code: "invalid_params",
      status: 422,
      details: [{ path: "options.uppercase", message: 'is not allowed here; this object takes "upper"' }],
    });
    await expect(runNested({ text: "abc", options: { uper: true } })).rejects.toMatchObject({
      details: [{ path: "options.uper", message: 'is not allowed here; did you mean "upper"?' }],
    });
    await expect(
      runNested({ text: "abc", items: [{ name: "a" }, { name: "b", nmae: "c" }] }),
    ).rejects.toMatchObject({
      details: [{ path: "items.1.nmae", message: 'is not allowed here; did you mean "name"?' }],
    });
    await expect(
      runNested({ text: "abc", items: [{ name: "a" }, { name: "b", label: "c" }] }),
    ).rejects.toMatchObject({
      details: [{ path: "items.1.label", message: 'is not allowed here; this object takes "name"' }],
    });
    expect((await runNested({ text: "abc", options: { upper: true } })).record.result).toMatchObject({
      text: "ABC",
    });
  });

  it("keeps a nested object that takes other members, and says additionalProperties: false for the rest", async () => {
    const { record } = await runNested({ text: "a", extra: { x: { kept: "k", other: 1 } } });
    expect(record.result).toMatchObject({ extra: { x: { kept: "k", other: 1 } } });
    const schema = nestedCore.skillport.catalog.get("test.nested").params as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.options).toMatchObject({
      additionalProperties: false,
      description: "How to answer",
    });
    expect(schema.properties.options?.properties).toMatchObject({
      upper: { description: "Upper-case the text" },
    });
    expect(schema.properties.items).toMatchObject({ items: { additionalProperties: false } });
    expect(schema.properties.extra?.additionalProperties).not.toHaveProperty("additionalProperties", false);
  });

  it("still masks a nested member marked sensitive in the record", async () => {
    const { record } = await runNested({ text: "a", token: { value: "hunter2" } });
    const stored = await nestedCore.skillport.store.executions.get(record.id);
    expect(JSON.stringify(stored)).not.toContain("hunter2");
  });
});

describe("asynchronous execution", () => {
  it("answers with a queued record at once and completes in the background", async () => {
    const { record, mode } = await run("test.sleep", { ms: 50 }, { async: true });
    expect(mode).toBe("async");
    expect(record.status).toBe("queued");
    expect((await core.skillport.store.executions.get(record.id))?.record.status).toBeDefined();
    const done = await core.skillport.queries.get(key, record.id, 10_000);
    expect(done).toMatchObject({ status: "completed", result: { slept: 50 } });
  });

  it("cancels a running execution, and refuses to cancel it again", async () => {
    const { record } = await run("test.sleep", { ms: 30_000 }, { async: true });
    await waitForStatus(record.id, "running");
    const cancelled = await core.skillport.queries.cancel(key, record.id);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      success: false,
      error: { code: "execution_cancelled" },
    });
    // The refusal says how it ended, so that a retried cancel knows whether it was its own.
    await expect(core.skillport.queries.cancel(key, record.id)).rejects.toMatchObject({
      code: "execution_not_cancellable",
      status: 409,
      message:
        "The execution has already ended (cancelled); only a queued or running execution can be cancelled.",
    });
  });

  it("refuses a cancel that reaches the execution only after it completed, and leaves it completed", async () => {
    const { record } = await run("test.sleep", { ms: 50 }, { async: true });
    await waitForStatus(record.id, "running");
    // The cancel read the record while it ran; the run ends before the cancel acts on it.
    const { runner } = core.skillport;
    const cancelLocal = runner.cancelLocal.bind(runner);
    const late = vi.spyOn(runner, "cancelLocal").mockImplementation(async (id) => {
      await waitForStatus(id, "completed");
      return cancelLocal(id);
    });
    try {
      await expect(core.skillport.queries.cancel(key, record.id)).rejects.toMatchObject({
        code: "execution_not_cancellable",
        status: 409,
        message:
          "The execution has already ended (completed); only a queued or running execution can be cancelled.",
      });
    } finally {
      late.mockRestore();
    }
    expect(await core.skillport.queries.get(key, record.id)).toMatchObject({ status: "completed" });
  });

  it("cancels a queued execution before it starts", async () => {
    // Concurrency 2: two long ones fill the slots, the third waits.
    await run("test.sleep", { ms: 30_000 }, { async: true });
    await run("test.sleep", { ms: 30_000 }, { async: true });
    const { record } = await run("test.echo", { text: "later" }, { async: true });
    const cancelled = await core.skillport.queries.cancel(key, record.id);
    expect(cancelled).toMatchObject({ status: "cancelled", latency_ms: null, started_at: null });
  });

  it("streams status and progress events, ending with the terminal status", async () => {
    const { record } = await run("test.sleep", { ms: 100 }, { async: true });
    const events: ExecutionEvent[] = [];
    for await (const event of core.skillport.queries.subscribe(key, record.id)) events.push(event);
    const last = events.at(-1);
    expect(last?.type === "status" && last.record.status).toBe("completed");
    expect(events.some((e) => e.type === "progress")).toBe(true);
  });
});

describe("a terminal record the store refuses", () => {
  /** Makes the store refuse the next `times` saves of a terminal record, as an unreachable database does. */
  function refuseTerminalSaves(times: number) {
    const { executions } = core.skillport.store;
    const save = executions.save.bind(executions);
    let refused = 0;
    return vi.spyOn(executions, "save").mockImplementation(async (execution) => {
      if (execution.record.status !== "running" && execution.record.status !== "queued" && refused < times) {
        refused++;
        throw new Error("connection to the database lost");
      }
      return save(execution);
    });
  }

  it("is stored once the store takes it again, and its end announced, for an async execution", async () => {
    const refusing = refuseTerminalSaves(2);
    try {
      const { record } = await run("test.echo", { text: "kept" }, { async: true });
      const events: ExecutionEvent[] = [];
      const stored = waitForStatus(record.id, "completed", 15_000);
      for await (const event of core.skillport.queries.subscribe(key, record.id)) events.push(event);
      await stored;
      expect(refusing.mock.calls.filter(([e]) => e.record.status === "completed")).toHaveLength(3);
      expect(await core.skillport.queries.get(key, record.id)).toMatchObject({
        status: "completed",
        result: { text: "kept" },
      });
      const last = events.at(-1);
      expect(last?.type === "status" && last.record.status).toBe("completed");
    } finally {
      refusing.mockRestore();
    }
  });

  it("fails a sync call, and is stored later rather than left running", async () => {
    const refusing = refuseTerminalSaves(1);
    try {
      await expect(run("test.echo", { text: "late" })).rejects.toThrow(/database/);
      // The running record's own write was under way; the retry comes a second later.
      let running: StoredExecution | undefined;
      for (let tries = 0; !running && tries < 200; tries++) {
        [running] = await core.skillport.store.executions.list({ owner: key.owner, limit: 1 });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (!running) throw new Error("no record was stored");
      expect(running.record.status).toBe("running");
      await waitForStatus(running.record.id, "completed", 10_000);
    } finally {
      refusing.mockRestore();
    }
  });
});

describe("idempotency", () => {
  it("takes keys an HTTP header carries intact, and refuses the others, whatever the surface", async () => {
    const input = { skill_id: "test.echo", params: { text: "k" }, async: false, timeout_ms: 1000 };
    for (const idempotencyKey of ["k", "a b", "~!#$%&'*+-.^_`|", "x".repeat(255)]) {
      const { record } = await core.skillport.executions.execute(key, input, { idempotencyKey });
      expect(record.status, idempotencyKey).toBe("completed");
    }
    for (const idempotencyKey of ["", " k", "k ", "\tk", "a\nb", "a\u0000b", "ключ", "é", "x".repeat(256)]) {
      await expect(
        core.skillport.executions.execute(key, input, { idempotencyKey }),
        JSON.stringify(idempotencyKey),
      ).rejects.toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining("printable ASCII"),
      });
    }
  });

  it("returns the first record for a repeat and runs the skill once", async () => {
    const label = `once-${Math.random()}`;
    const input = { skill_id: "test.count", params: { label }, async: false, timeout_ms: 1000 };
    const first = await core.skillport.executions.execute(key, input, { idempotencyKey: "k1" });
    const again = await core.skillport.executions.execute(
      key,
      { ...input, params: { label } },
      { idempotencyKey: "k1" },
    );
    expect(again.record.id).toBe(first.record.id);
    expect(again.replayed).toBe(true);
    expect(counts.get(label)).toBe(1);
  });

  it("refuses the same key with a different body, and a repeat while the first still runs", async () => {
    await core.skillport.executions.execute(
      key,
      { skill_id: "test.echo", params: { text: "a" }, async: false, timeout_ms: 1000 },
      { idempotencyKey: "k2" },
    );
    await expect(
      core.skillport.executions.execute(
        key,
        { skill_id: "test.echo", params: { text: "b" }, async: false, timeout_ms: 1000 },
        { idempotencyKey: "k2" },
      ),
    ).rejects.toMatchObject({ code: "idempotency_key_reused", status: 422 });

    // Longer than a repeat waits for the first to end (REPEAT_SETTLE_MS).
    const input = { skill_id: "test.sleep", params: { ms: 1_000 }, async: false, timeout_ms: 5000 };
    const first = core.skillport.executions.execute(key, input, { idempotencyKey: "k3" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refusal = await core.skillport.executions
      .execute(key, input, { idempotencyKey: "k3" })
      .catch((err: unknown) => err);
    const { record } = await first;
    // It names the run going on (left open in session 26), in the error and in its body.
    expect(refusal).toMatchObject({ code: "idempotency_in_progress", status: 409, executionId: record.id });
    expect(errorBody(refusal as ServiceError)).toMatchObject({ execution_id: record.id });
  });

  // Between the first call's reservation and its record (one commit), a repeat got the 409
  // without `execution_id`, though the key already named the run.
  it("names the first call's run in a repeat's 409 even while its record is being stored, and that record is there to follow", async () => {
    const gate = recordSaveGate("test.latch");
    const gated = await makeCore([...testSkills, latch], { clock: systemClock, wrapStore: gate.wrap });
    try {
      const owner = await gated.keyFor();
      const label = `window-${Math.random()}`;
      const input = { skill_id: "test.latch", params: { label }, async: false, timeout_ms: 30_000 };
      const first = gated.skillport.executions.execute(owner, input, { idempotencyKey: "window" });
      const firstId = await gate.saving;
      const refusal = await gated.skillport.executions
        .execute(owner, input, { idempotencyKey: "window" })
        .catch((err: unknown) => err);
      // The repeat read the key's run before its record was stored.
      expect(gate.readWhileSaving).toBe(true);
      expect(refusal).toMatchObject({ code: "idempotency_in_progress", status: 409, executionId: firstId });
      expect(errorBody(refusal as ServiceError)).toMatchObject({ execution_id: firstId });
      // Followed at once, as the 409 says, the run is found.
      expect(await gated.skillport.queries.get(owner, firstId)).toMatchObject({
        id: firstId,
        status: "running",
      });
      await vi.waitFor(() => expect(latchReleases.has(label)).toBe(true));
      latchReleases.get(label)?.();
      expect((await first).record).toMatchObject({ id: firstId, status: "completed" });
    } finally {
      await gated.cleanup();
    }
  });

  it("runs a repeat that came while the first call's record was being stored, once the store refused that record", async () => {
    const gate = recordSaveGate("test.echo", new Error("the store refused the record"));
    const gated = await makeCore(testSkills, { clock: systemClock, wrapStore: gate.wrap });
    try {
      const owner = await gated.keyFor();
      const input = {
        skill_id: "test.echo",
        params: { text: "refused first" },
        async: false,
        timeout_ms: 1000,
      };
      const first = gated.skillport.executions
        .execute(owner, input, { idempotencyKey: "refused" })
        .catch((err: unknown) => err);
      await gate.saving;
      const repeat = await gated.skillport.executions.execute(owner, input, { idempotencyKey: "refused" });
      expect(gate.readWhileSaving).toBe(true);
      expect(await first).toMatchObject({ message: "the store refused the record" });
      // The first call's reservation was withdrawn: the repeat's run is the key's.
      expect(repeat).toMatchObject({ replayed: false, record: { status: "completed" } });
    } finally {
      await gated.cleanup();
    }
  });

  // An async first call whose queued record the store refused kept its reservation: a
  // retry with the same key got 409 naming an execution that never existed, for a minute.
  it("leaves the key free when the store refuses an async first call's record: a retry with it runs", async () => {
    const refusal = new Error("the store refused the queued record");
    const refuseFirstQueued = (store: Store): Store => {
      const { executions } = store;
      let refused = false;
      const save: Store["executions"]["save"] = async (execution) => {
        if (!refused && execution.record.status === "queued") {
          refused = true;
          throw refusal;
        }
        return executions.save(execution);
      };
      return {
        ...store,
        executions: Object.assign(Object.create(executions) as Store["executions"], { save }),
      };
    };
    const refusing = await makeCore(testSkills, { clock: systemClock, wrapStore: refuseFirstQueued });
    try {
      const owner = await refusing.keyFor();
      const input = { skill_id: "test.echo", params: { text: "async" }, async: true, timeout_ms: 1000 };
      const execute = () =>
        refusing.skillport.executions.execute(owner, input, { idempotencyKey: "async-refused" });
      await expect(execute()).rejects.toBe(refusal);
      const retry = await execute();
      expect(retry).toMatchObject({ replayed: false, mode: "async", record: { status: "queued" } });
      // The key is the retry's now: a repeat is answered from its record.
      expect(await execute()).toMatchObject({ replayed: true, record: { id: retry.record.id } });
    } finally {
      await refusing.cleanup();
    }
  });

  it("goes on with an async call whose record was stored though the store's answer was an error (a commit's answer lost)", async () => {
    const lostAnswer = (store: Store): Store => {
      const { executions } = store;
      let lost = false;
      const save: Store["executions"]["save"] = async (execution) => {
        const saved = await executions.save(execution);
        if (!lost && execution.record.status === "queued") {
          lost = true;
          throw new Error("the connection was cut during COMMIT");
        }
        return saved;
      };
      return {
        ...store,
        executions: Object.assign(Object.create(executions) as Store["executions"], { save }),
      };
    };
    const losing = await makeCore(testSkills, { clock: systemClock, wrapStore: lostAnswer });
    try {
      const owner = await losing.keyFor();
      const input = { skill_id: "test.echo", params: { text: "stored" }, async: true, timeout_ms: 1000 };
      const first = await losing.skillport.executions.execute(owner, input, {
        idempotencyKey: "lost-answer",
      });
      expect(first).toMatchObject({ replayed: false, mode: "async", record: { status: "queued" } });
      await vi.waitFor(
        async () =>
          expect((await losing.skillport.store.executions.get(first.record.id))?.record.status).toBe(
            "completed",
          ),
        { timeout: 5_000 },
      );
    } finally {
      await losing.cleanup();
    }
  });

  it("names a run another process reserved the key for and has not stored yet in the repeat's 409", async () => {
    const input = { skill_id: "test.echo", params: { text: "elsewhere" }, async: false, timeout_ms: 1000 };
    const createdAt = new Date();
    await core.skillport.store.idempotency.reserve({
      keyId: key.id,
      idempotencyKey: "elsewhere",
      requestHash: createHash("sha256").update(canonicalJson(input)).digest("hex"),
      executionId: "exec_reserved_elsewhere",
      mode: "sync",
      createdAt: createdAt.toISOString(),
      expiresAt: new Date(createdAt.getTime() + 24 * 3600_000).toISOString(),
    });
    const refusal = await core.skillport.executions
      .execute(key, input, { idempotencyKey: "elsewhere" })
      .catch((err: unknown) => err);
    expect(refusal).toMatchObject({
      code: "idempotency_in_progress",
      executionId: "exec_reserved_elsewhere",
      message: expect.stringContaining(
        "execution exec_reserved_elsewhere is being started elsewhere and may not be found for a moment; retry this request",
      ),
    });
  });

  it("runs a repeat whose first call's record was never stored (its process died), once the reservation is a minute old", async () => {
    const input = {
      skill_id: "test.echo",
      params: { text: "after a crash" },
      async: false,
      timeout_ms: 1000,
    };
    const { store } = core.skillport;
    // What a process killed between committing the reservation and its record leaves.
    const orphanedReservation = (idempotencyKey: string, ageMs: number) => {
      const createdMs = Date.now() - ageMs;
      return store.idempotency.reserve({
        keyId: key.id,
        idempotencyKey,
        requestHash: createHash("sha256").update(canonicalJson(input)).digest("hex"),
        executionId: `exec_never_stored_${idempotencyKey}`,
        mode: "sync",
        createdAt: new Date(createdMs).toISOString(),
        expiresAt: new Date(createdMs + 24 * 3600_000).toISOString(),
      });
    };
    await orphanedReservation("crashed-long-ago", 61_000);
    const repeat = await core.skillport.executions.execute(key, input, {
      idempotencyKey: "crashed-long-ago",
    });
    expect(repeat).toMatchObject({ replayed: false, record: { status: "completed" } });
    // The key now names the execution that ran: a further repeat is answered from it.
    const again = await core.skillport.executions.execute(key, input, { idempotencyKey: "crashed-long-ago" });
    expect(again).toMatchObject({ replayed: true, record: { id: repeat.record.id } });

    // A reservation made moments ago may still get its record: its call is in progress.
    await orphanedReservation("just-made", 5_000);
    await expect(
      core.skillport.executions.execute(key, input, { idempotencyKey: "just-made" }),
    ).rejects.toMatchObject({ code: "idempotency_in_progress", status: 409 });
  });

  it("commits a keyed sync call's running record before its skill starts: a reservation without a record never ran", async () => {
    let store: Store | undefined;
    const probe = defineSkill({
      id: "test.probe",
      title: "Probe",
      description: "Says how the store holds its own execution when it starts.",
      tags: ["test"],
      params: z.object({}),
      result: z.object({ stored: z.string() }),
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      examples: [],
      run: async (_params, ctx) => ({
        stored: (await store?.executions.get(ctx.executionId))?.record.status ?? "nothing",
      }),
    });
    const probed = await makeCore([...testSkills, probe], { clock: systemClock });
    try {
      store = probed.skillport.store;
      const prober = await probed.keyFor();
      const input = { skill_id: "test.probe", params: {}, async: false, timeout_ms: 1000 };
      const { record } = await probed.skillport.executions.execute(prober, input, {
        idempotencyKey: "probe",
      });
      expect(record.result).toEqual({ stored: "running" });
    } finally {
      await probed.cleanup();
    }
  });

  it("an async call whose record was committed as shutdown began is answered 202, and runs at the next start", async () => {
    const dir = await coreOnSqlite();
    const input = { skill_id: "test.echo", params: { text: "accepted" }, async: true, timeout_ms: 1000 };
    const started = core.skillport.executions.execute(key, input, { idempotencyKey: "at-shutdown" });
    // The record waits for its group commit (the next loop turn) while the process stops.
    const stopped = core.skillport.stop(1_000);
    const answer = await started;
    expect(answer).toMatchObject({ mode: "async", replayed: false, record: { status: "queued" } });
    await stopped;
    await core.skillport.close();

    core = await makeCore(testSkills, { store: "sqlite", clock: systemClock, dir });
    expect(await core.skillport.queries.get(key, answer.record.id, 2_000)).toMatchObject({
      status: "completed",
      result: { text: "accepted" },
    });
    const repeat = await core.skillport.executions.execute(key, input, { idempotencyKey: "at-shutdown" });
    expect(repeat).toMatchObject({ replayed: true, record: { id: answer.record.id } });
  });

  it("a sync call refused as shutdown began withdraws its Idempotency-Key, so that a repeat runs", async () => {
    const { store } = core.skillport;
    const reserve = store.idempotency.reserve.bind(store.idempotency);
    // A store that answers later than SQLite does (a PostgreSQL round trip): shutdown begins meanwhile.
    vi.spyOn(store.idempotency, "reserve").mockImplementation(async (entry) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return reserve(entry);
    });
    const input = { skill_id: "test.echo", params: { text: "refused" }, async: false, timeout_ms: 1000 };
    const refused = core.skillport.executions.execute(key, input, { idempotencyKey: "refused-at-shutdown" });
    const stopped = core.skillport.stop(1_000);
    await expect(refused).rejects.toMatchObject({ code: "service_unavailable", status: 503 });
    await stopped;
    vi.restoreAllMocks();
    const taken = await store.idempotency.reserve({
      keyId: key.id,
      idempotencyKey: "refused-at-shutdown",
      requestHash: "another",
      executionId: "exec_next",
      mode: "sync",
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(taken).toEqual({ reserved: true });
  });

  it("scopes idempotency keys to the API key", async () => {
    const other = await core.keyFor();
    const input = { skill_id: "test.echo", params: { text: "a" }, async: false, timeout_ms: 1000 };
    const a = await core.skillport.executions.execute(key, input, { idempotencyKey: "shared" });
    const b = await core.skillport.executions.execute(other, input, { idempotencyKey: "shared" });
    expect(b.record.id).not.toBe(a.record.id);
  });
});

describe("owners", () => {
  it("hides another owner's records and lists only one's own, newest first", async () => {
    const stranger = await core.keyFor({ owner: "someone-else" });
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push((await run("test.echo", { text: String(i) })).record.id);
    await expect(core.skillport.queries.get(stranger, mine[0] ?? "")).rejects.toMatchObject({
      code: "execution_not_found",
    });
    await expect(core.skillport.queries.cancel(stranger, mine[0] ?? "")).rejects.toMatchObject({
      code: "execution_not_found",
    });
    expect((await core.skillport.queries.list(stranger, { limit: 10 })).data).toEqual([]);

    const page1 = await core.skillport.queries.list(key, { limit: 3 });
    expect(page1.data.map((r) => r.id)).toEqual(mine.slice(2).reverse());
    expect(page1.next_cursor).not.toBeNull();
    const page2 = await core.skillport.queries.list(key, {
      limit: 3,
      cursor: page1.next_cursor ?? undefined,
    });
    expect(page2.data.map((r) => r.id)).toEqual(mine.slice(0, 2).reverse());
    expect(page2.next_cursor).toBeNull();
  });
});

describe("record ids", () => {
  it("begin with the record's created_at, so listing by id lists by creation time", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    const timed = await makeCore(testSkills, { clock });
    try {
      const owner = await timed.keyFor();
      // The clock goes back and forth (a corrected system clock does too); c and d share
      // a millisecond.
      const runs = { a: 2000, b: 0, c: 1000, d: 1000 };
      for (const [text, offset] of Object.entries(runs)) {
        clock.set(Date.UTC(2026, 10, 22, 12, 0, 0) + offset);
        const { record } = await timed.run(owner, "test.echo", { text });
        expect(record.id.slice("exec_".length, "exec_".length + 8)).toBe(toBase62(clock.now(), 8));
        expect(record.created_at).toBe(new Date(clock.now()).toISOString());
      }
      const listed = (await timed.skillport.queries.list(owner, { limit: 10 })).data;
      expect(listed.map((r) => r.result)).toEqual(["a", "d", "c", "b"].map((text) => ({ text })));
    } finally {
      await timed.cleanup();
    }
  });
});

describe("recovery after a crash", () => {
  it("ends executions a dead process was running as interrupted and runs the ones it left queued", async () => {
    const dir = await coreOnSqlite();
    const base = { owner: key.owner, keyId: key.id, async: true, timeoutMs: 5000, runnerId: "runner_dead" };
    const now = new Date().toISOString();
    const record = {
      success: false,
      error: null,
      latency_ms: null,
      result: null,
      created_at: now,
      finished_at: null,
    };
    await core.skillport.store.executions.save({
      ...base,
      params: { ms: 1 },
      record: {
        ...record,
        id: "exec_was_running",
        skill_id: "test.sleep",
        status: "running",
        started_at: now,
      },
    });
    await core.skillport.store.executions.save({
      ...base,
      params: { text: "resumed" },
      record: { ...record, id: "exec_was_queued", skill_id: "test.echo", status: "queued", started_at: null },
    });
    await core.skillport.stop(1000);
    await core.skillport.close();

    core = await makeCore(testSkills, { store: "sqlite", clock: systemClock, dir });
    const interrupted = await core.skillport.queries.get(key, "exec_was_running");
    expect(interrupted).toMatchObject({ status: "failed", error: { code: "execution_interrupted" } });
    const resumed = await core.skillport.queries.get(key, "exec_was_queued", 10);
    expect(resumed).toMatchObject({ status: "completed", result: { text: "resumed" } });
  });
});

describe("async slots", () => {
  const released = async (label: string) => {
    await vi.waitFor(() => expect(latchReleases.has(label)).toBe(true));
    latchReleases.get(label)?.();
  };

  it("go to another owner's execution as one frees, not after one owner's whole burst", async () => {
    await core.cleanup();
    core = await makeCore([...testSkills, latch], { clock: systemClock, asyncConcurrency: 2 });
    key = await core.keyFor();
    // Two slots: alice's burst holds both and queues three more; then bob's run queues.
    const burst: string[] = [];
    for (let i = 0; i < 5; i++) {
      burst.push((await run("test.latch", { label: `a${i}` }, { async: true })).record.id);
    }
    const bob = await core.keyFor({ owner: "bob" });
    const bobs = (await core.run(bob, "test.echo", { text: "bob" }, { async: true })).record.id;
    await released("a0");
    expect(await core.skillport.queries.get(bob, bobs, 5_000)).toMatchObject({ status: "completed" });
    // The slot alice's first run freed went to bob, not to alice's third, queued before him.
    expect((await core.skillport.store.executions.get(burst[2] as string))?.record.status).toBe("queued");
    for (const label of ["a1", "a2", "a3", "a4"]) await released(label);
    for (const id of burst) {
      expect((await core.skillport.queries.get(key, id, 5_000)).status).toBe("completed");
    }
  });
});

describe("shutdown", () => {
  it("starts no queued execution once stopping, even as running ones end; the next start runs it", async () => {
    const dir = await coreOnSqlite();
    // asyncConcurrency is 2: two run, the third waits for a slot.
    const running = await Promise.all([1, 2].map(() => run("test.sleep", { ms: 200 }, { async: true })));
    const queued = await run("test.echo", { text: "after restart" }, { async: true });
    await waitForStatus(running[1]?.record.id ?? "", "running");
    expect((await core.skillport.store.executions.get(queued.record.id))?.record.status).toBe("queued");

    await core.skillport.stop(5_000);
    for (const { record } of running) {
      expect((await core.skillport.store.executions.get(record.id))?.record.status).toBe("completed");
    }
    expect((await core.skillport.store.executions.get(queued.record.id))?.record.status).toBe("queued");
    await core.skillport.close();

    core = await makeCore(testSkills, { store: "sqlite", clock: systemClock, dir });
    expect(await core.skillport.queries.get(key, queued.record.id, 10)).toMatchObject({
      status: "completed",
      result: { text: "after restart" },
    });
  });
});

async function waitForStatus(id: string, status: string, withinMs = 2_000): Promise<void> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; ) {
    if ((await core.skillport.store.executions.get(id))?.record.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${id} never reached ${status}`);
}

/**
 * A store wrapper that holds the first save of a `skillId` record until that execution is
 * read (a repeat looking up the run its Idempotency-Key names), then lets the save go on,
 * or fail with `refusal`: the moment between a reservation and its record, made to last.
 */
function recordSaveGate(skillId: string, refusal?: Error) {
  let gatedId: string | undefined;
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let announce: (id: string) => void = () => {};
  const gate = {
    /** Resolves with the execution's id once its save is held. */
    saving: new Promise<string>((resolve) => {
      announce = resolve;
    }),
    readWhileSaving: false,
    wrap(store: Store): Store {
      const { executions } = store;
      const save: Store["executions"]["save"] = async (execution) => {
        if (gatedId === undefined && execution.record.skill_id === skillId) {
          gatedId = execution.record.id;
          announce(gatedId);
          await opened;
          if (refusal) throw refusal;
        }
        return executions.save(execution);
      };
      const get: Store["executions"]["get"] = async (id) => {
        const found = await executions.get(id);
        if (id === gatedId && !gate.readWhileSaving) {
          gate.readWhileSaving = true;
          open();
        }
        return found;
      };
      return {
        ...store,
        executions: Object.assign(Object.create(executions) as Store["executions"], { save, get }),
      };
    },
  };
  return gate;
}
