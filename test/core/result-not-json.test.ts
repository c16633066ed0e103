import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { StoredExecution } from "../../src/core/execution/record.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import type { ExecutionStore } from "../../src/core/ports.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { type Core, makeCore } from "./make-core.js";
import { notJson, testSkills } from "./test-skills.js";

// Audit 26 F1: a result JSON cannot carry (a bigint under `z.any()`) made the store's
// JSON.stringify throw: HTTP 500, and a record left `running` for ever. It is a failed
// record now, whose message tells the author where and what, on the real SQLite store.

const lines: Record<string, unknown>[] = [];
const capturing = () => capturingLogger(lines);

let core: Core<"sqlite">;
let key: ApiKey;

beforeEach(async () => {
  lines.length = 0;
  core = await makeCore(testSkills, { store: "sqlite", clock: systemClock, logger: capturing() });
  key = await core.keyFor();
});
afterEach(() => core.cleanup());

/** A serializer's refusal of a value it cannot write: the same on every try, no outage. */
const unserializable = () => Promise.reject(new TypeError("Do not know how to serialize this"));

/**
 * The test's core, again, on a store whose `save` goes through `save` (given the real one),
 * and which also counts `outage` as an outage.
 */
async function coreSavingThrough(
  save: (execution: StoredExecution, stored: ExecutionStore["save"]) => Promise<boolean>,
  outage?: Error,
): Promise<void> {
  await core.cleanup();
  core = await makeCore(testSkills, {
    store: "sqlite",
    clock: systemClock,
    logger: capturing(),
    wrapStore: (store) => {
      const { executions } = store;
      const throughSave: ExecutionStore["save"] = (execution) => save(execution, (e) => executions.save(e));
      return {
        ...store,
        isOutage: (err: unknown) => err === outage || store.isOutage(err),
        executions: Object.assign(Object.create(executions) as ExecutionStore, { save: throughSave }),
      };
    },
  });
  key = await core.keyFor();
}

describe("a skill result JSON cannot carry", () => {
  it.each([
    ["bigint", /at result\.value\.rows\[0\]\.n \(a bigint; return it as a number or a string\)/],
    ["cycle", /at result\.value\.self \(a cycle: the value contains itself\)/],
    ["function", /at result\.value \(a function\)/],
    ["map", /at result\.value \(an instance of Map\)/],
    ["nan", /at result\.value \(NaN, which JSON writes as null\)/],
  ])("%s: ends a sync run failed, stored terminal, with where and what", async (value, message) => {
    const { record } = await core.run(key, notJson.id, { value });
    expect(record).toMatchObject({ status: "failed", success: false, result: null });
    expect(record.error?.code).toBe("execution_failed");
    expect(record.error?.message).toMatch(message);
    expect(record.error?.message).toContain("test.not_json");
    expect((await core.skillport.store.executions.get(record.id))?.record).toEqual(record);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        msg: "skill returned a value JSON cannot carry",
        skill_id: "test.not_json",
        execution_id: record.id,
      }),
    );
  });

  it("ends an async run failed instead of leaving it running", async () => {
    const { record } = await core.run(key, notJson.id, { value: "bigint" }, { async: true });
    const done = await core.skillport.queries.get(key, record.id, 10_000);
    expect(done).toMatchObject({ status: "failed", error: { code: "execution_failed" } });
    expect(done.error?.message).toMatch(/bigint/);
    expect((await core.skillport.store.executions.get(record.id))?.record.status).toBe("failed");
  });

  it("keeps a Date, which JSON writes as its ISO text", async () => {
    const { record } = await core.run(key, notJson.id, { value: "date" });
    expect(record.status).toBe("completed");
    const stored = await core.skillport.store.executions.get(record.id);
    expect(stored?.record.result).toEqual({ value: "2026-01-02T00:00:00.000Z" });
  });
});

describe("a terminal record the store refuses for good (not an outage)", () => {
  it("is stored failed instead of left running, and the caller gets that record, not a 5xx", async () => {
    let refused = 0;
    await coreSavingThrough((execution, stored) => {
      if (execution.record.result?.text !== "unstorable") return stored(execution);
      refused++;
      return unserializable();
    });
    const { record } = await core.run(key, "test.echo", { text: "unstorable" });
    expect(refused).toBe(1);
    expect(record).toMatchObject({ status: "failed", result: null, error: { code: "execution_failed" } });
    expect(record.error?.message).toMatch(/ended completed, but its record could not be stored/);
    expect((await core.skillport.store.executions.get(record.id))?.record).toEqual(record);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        execution_id: record.id,
        msg: "the store refused an execution's terminal record; it is stored as failed instead",
      }),
    );
  });
});

describe("a terminal record the store refuses for good, then the store has an outage", () => {
  it("keeps the failed record for the retries, tells the caller it ended failed, and stores it once the store is back", async () => {
    const outage = new Error("connect ECONNREFUSED (an outage)");
    let outages = 0;
    await coreSavingThrough((execution, stored) => {
      if (execution.record.result?.text === "unstorable") return unserializable();
      // The failed record meets the store down once, then the store is back.
      if (execution.record.status === "failed" && outages++ === 0) return Promise.reject(outage);
      return stored(execution);
    }, outage);
    const answer = await core.run(key, "test.echo", { text: "unstorable" }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(answer).toMatchObject({ code: "service_unavailable" });
    expect((answer as Error).message).toMatch(/ended failed/);
    const id = /exec_\w+/.exec((answer as Error).message)?.[0] ?? "";
    await expect
      .poll(async () => (await core.skillport.store.executions.get(id))?.record.status, { timeout: 5_000 })
      .toBe("failed");
    const stored = await core.skillport.store.executions.get(id);
    expect(stored?.record.error?.message).toMatch(/ended completed, but its record could not be stored/);
  });
});
