import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import type { StoredExecution } from "../../src/core/execution/record.js";
import { MAX_RESULT_BYTES } from "../../src/core/execution/result-size.js";
import { newId } from "../../src/core/ids.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import { makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

let core: Awaited<ReturnType<typeof makeCore>>;
let key: ApiKey;

beforeEach(async () => {
  core = await makeCore(testSkills);
  key = await core.keyFor();
});
afterEach(() => core.cleanup());

/** A completed record of `key`'s owner whose result is as large as a result may be. */
function largestResult(at: number): StoredExecution {
  const createdAt = isoTimestamp(Date.UTC(2026, 0, 1) + at * 1000);
  return {
    record: {
      id: newId("exec", Date.parse(createdAt)),
      skill_id: "json.query",
      status: "completed",
      success: true,
      error: null,
      latency_ms: 1,
      // {"data":""} is 11 bytes of JSON.
      result: { data: "a".repeat(MAX_RESULT_BYTES - 11) },
      created_at: createdAt,
      started_at: createdAt,
      finished_at: createdAt,
    },
    owner: key.owner,
    keyId: key.id,
    params: {},
    async: false,
    timeoutMs: 30_000,
    runnerId: "runner_test",
  };
}

describe("listing executions with large results", () => {
  // Regression: 65 records of 8 MiB listed with limit=100 made one response past V8's
  // largest string, and the listing answered 500 after seconds of a blocked event loop.
  it("holds no more than two of the largest results on a page, and next_cursor reaches the rest", async () => {
    const executions = [0, 1, 2].map(largestResult);
    for (const execution of executions) await core.skillport.store.executions.save(execution);
    const newestFirst = executions.map((execution) => execution.record.id).reverse();

    const first = await core.skillport.queries.list(key, { limit: 100 });
    expect(first.data.map((record) => record.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.next_cursor).not.toBeNull();

    const rest = await core.skillport.queries.list(key, {
      limit: 100,
      cursor: first.next_cursor ?? undefined,
    });
    expect(rest.data.map((record) => record.id)).toEqual(newestFirst.slice(2));
    expect(rest.next_cursor).toBeNull();
  });
});
