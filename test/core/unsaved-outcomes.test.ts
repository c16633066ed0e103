import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { StoredExecution } from "../../src/core/execution/record.js";
import type { KeptExecution } from "../../src/core/execution/redacted-execution.js";
import { type HeldRecord, UnsavedOutcomes } from "../../src/core/execution/unsaved-outcomes.js";
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

  function outcomes(refusal: Error, held: HeldRecord = "running") {
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
      "the store still holds it queued, so it RUNS whatever this line's status says: at the next start, or on another process sharing the store once the store takes writes again; if it must not run, cancel it (POST /v1/executions/{id}/cancel) as soon as the service answers, which stops it if it has begun",
    ],
    [
      "none",
      "the store took no record of it (each save was refused), so the next start knows nothing of it and this line is all that is left of it",
    ],
    [
      "running-or-none",
      "the next start records the execution failed (execution_interrupted) if the store took its running record (its save had no answer yet), and knows nothing of it if not",
    ],
  ] as const)(
    "a stop's give-up line, the store holding the record %s, says what the next start makes of it",
    async (held, next) => {
      const { unsaved, given, givenUp } = outcomes(transient, held);
      const stopped = unsaved.stop(0);
      await vi.advanceTimersByTimeAsync(250);
      await stopped;
      expect(givenUp().map((line) => line.msg)).toEqual(
        given.map(
          ({ record }) =>
            `stopped with an execution's outcome the store refused: it is lost, and ${next.replace("{id}", record.id)}; its real outcome is this line's status`,
        ),
      );
    },
  );

  // A sync run's running record is saved alongside the run: its save may be answered after
  // the outcome was refused, so what the store holds is asked when the outcome is given up.
  it("asks what the store holds of the execution when it gives the outcome up, not when it was refused", async () => {
    let held: "running-or-none" | "none" = "running-or-none";
    const { unsaved, givenUp } = outcomes(transient, () => held);
    held = "none";
    const stopped = unsaved.stop(0);
    await vi.advanceTimersByTimeAsync(250);
    await stopped;
    for (const { msg } of givenUp()) {
      expect(msg).toContain(
        "the store took no record of it (each save was refused), so the next start knows nothing of it",
      );
      expect(msg).not.toContain("execution_interrupted");
    }
    expect(givenUp()).toHaveLength(2);
  });

  // Lost files or not, a record the store never took is in none of them.
  it("says of an execution the store never took a record of that the next start knows nothing of it, after its files were lost too", async () => {
    const { unsaved, givenUp } = outcomes(untilRestart, "none");
    await unsaved.stop(60_000);
    expect(givenUp()).toHaveLength(2);
    for (const { msg } of givenUp()) {
      expect(msg).toMatch(
        /^stopped with an execution's outcome the store refuses until the process restarts: it is lost, and the store took no record of it \(each save was refused\), so the next start knows nothing of it/,
      );
      expect(msg).not.toContain("nothing if the database file was deleted");
    }
  });

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
