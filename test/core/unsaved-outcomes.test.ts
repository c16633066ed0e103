import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { StoredExecution } from "../../src/core/execution/record.js";
import type { KeptExecution } from "../../src/core/execution/redacted-execution.js";
import { type RecordHeld, UnsavedOutcomes } from "../../src/core/execution/unsaved-outcomes.js";
import { makeExecution } from "../store/contract/fixtures.js";
import { capturingLogger } from "../support/capturing-logger.js";

// Once a SQLite store's database file or WAL was deleted under it, it refuses every write
// until the process restarts; a stop still retried the outcomes it held every 250 ms until
// its deadline (11.4 s instead of 1.6 s at the default one), for nothing.

/** A refusal the store says lasts until the process restarts (a lost database file). */
const untilRestart = new Error("the store takes no writes until the process restarts");
/** One that may pass (a full disk). */
const transient = new Error("database or disk is full");

describe("outcomes the store refused", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function outcomes(refusal: Error, held: RecordHeld = "running") {
    const lines: Record<string, unknown>[] = [];
    const save = vi.fn(async (_execution: KeptExecution): Promise<StoredExecution> => {
      throw refusal;
    });
    const unsaved = new UnsavedOutcomes({
      save,
      onSaved: () => expect.unreachable("a refused outcome was announced stored"),
      refusedUntilRestart: (err) => err === untilRestart,
      logger: capturingLogger(lines),
    });
    const given = (["completed", "failed"] as const).map(
      (status) => makeExecution({ status, skillId: `test.${status}` }) as KeptExecution,
    );
    for (const execution of given) unsaved.add(execution, held);
    const givenUp = () => lines.filter((line) => line.level === "error");
    return { unsaved, save, given, givenUp };
  }

  /** Whether `stop` resolves once what is already due has run, with no timer advanced past now. */
  async function stopsAtOnce(stopped: Promise<void>): Promise<boolean> {
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    return done;
  }

  it("a stop gives up at once on the outcomes the store refuses until restart, logging each once by id, skill and status", async () => {
    const { unsaved, save, given, givenUp } = outcomes(untilRestart);
    expect(await stopsAtOnce(unsaved.stop(60_000))).toBe(true);
    expect(save).toHaveBeenCalledTimes(given.length);
    expect(givenUp()).toEqual(
      given.map(({ record }) => ({
        level: "error",
        execution_id: record.id,
        skill_id: record.skill_id,
        status: record.status,
        finished_at: record.finished_at,
        error_code: record.error?.code ?? null,
        msg: expect.stringMatching(
          /^stopped with an execution's outcome the store refuses until the process restarts: it is lost/,
        ),
      })),
    );
    // Its files were lost: the next start may find no record of it (a deleted database
    // file) or the one stored before, so neither is claimed.
    for (const { msg } of givenUp()) {
      expect(msg).not.toContain("the next start records the execution failed");
      expect(msg).toContain("nothing if the database file was deleted");
    }
    // Never the params or the result.
    expect(JSON.stringify(givenUp())).not.toContain("2^10");
    expect(JSON.stringify(givenUp())).not.toContain("1024");
  });

  it("a stop retries outcomes refused for a while until its deadline, then logs each once", async () => {
    const { unsaved, save, given, givenUp } = outcomes(transient);
    const stopped = unsaved.stop(1_000);
    expect(await stopsAtOnce(stopped)).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    await stopped;
    // The first try, then one every 250 ms until the deadline.
    expect(save.mock.calls.length).toBeGreaterThanOrEqual(4 * given.length);
    expect(givenUp().map((line) => [line.execution_id, line.msg])).toEqual(
      given.map(({ record }) => [
        record.id,
        expect.stringMatching(/^stopped with an execution's outcome the store refused: it is lost/),
      ]),
    );
  });

  it.each([
    ["running", "the next start records the execution failed (execution_interrupted)"],
    [
      "queued",
      "its stored record is still queued, so the next start RUNS it, whatever this line's status says: cancel it once the service is back if it must not run",
    ],
    [
      "running-or-none",
      "the next start records the execution failed (execution_interrupted) if the store took its running record, and knows nothing of it if not",
    ],
  ] as const)(
    "a stop's give-up line, the store holding the record %s, says what the next start makes of it",
    async (held, next) => {
      const { unsaved, givenUp } = outcomes(transient, held);
      const stopped = unsaved.stop(0);
      await vi.advanceTimersByTimeAsync(250);
      await stopped;
      expect(givenUp().map((line) => line.msg)).toEqual([
        `stopped with an execution's outcome the store refused: it is lost, and ${next}; its real outcome is this line's status`,
        `stopped with an execution's outcome the store refused: it is lost, and ${next}; its real outcome is this line's status`,
      ]);
    },
  );

  it("gives up without a stop on an outcome the store refuses until restart, logged once and tried no more", async () => {
    const { unsaved, save, given, givenUp } = outcomes(untilRestart);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(save).toHaveBeenCalledTimes(given.length);
    expect(givenUp().map((line) => [line.execution_id, line.status, line.msg])).toEqual(
      given.map(({ record }) => [
        record.id,
        record.status,
        expect.stringMatching(
          /^gave up an execution's outcome the store refuses until the process restarts: it is lost/,
        ),
      ]),
    );
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(await stopsAtOnce(unsaved.stop(60_000))).toBe(true);
    expect(save).toHaveBeenCalledTimes(given.length);
    expect(givenUp()).toHaveLength(given.length);
  });

  it("keeps retrying without a stop an outcome refused for a while", async () => {
    const { unsaved, save, given, givenUp } = outcomes(transient);
    // 1 s, then 2, 4 and 8 s later.
    await vi.advanceTimersByTimeAsync(15_000);
    expect(save).toHaveBeenCalledTimes(4 * given.length);
    expect(givenUp()).toEqual([]);
    const stopped = unsaved.stop(0);
    await vi.advanceTimersByTimeAsync(250);
    await stopped;
    expect(givenUp()).toHaveLength(given.length);
  });
});
