import { describe, expect, it } from "vitest";
import type { KeptExecution } from "../../src/core/execution/redacted-execution.js";
import { RunningRecordSaves } from "../../src/core/execution/running-record-saves.js";
import { makeExecution } from "../store/contract/fixtures.js";

// What a given-up outcome's log line tells of the record the store holds comes from here: a
// sync run without an Idempotency-Key saves its running record alongside the run, most often
// in the same commit as its terminal record, and refused with it; its line said the next
// start would record it interrupted, though the store had no record of it at all.

const running = makeExecution({ status: "running" }) as KeptExecution;
const refusal = new Error("database or disk is full");

/** A save answered when the test says: `answer(true)` takes it, `answer(false)` refuses it. */
function heldSave() {
  const answers: ((taken: boolean) => void)[] = [];
  const save = (_running: KeptExecution) =>
    new Promise<void>((resolve, reject) => {
      answers.push((taken) => (taken ? resolve() : reject(refusal)));
    });
  const failures: unknown[] = [];
  return { save, answers, failures, onFailure: (err: unknown) => failures.push(err) };
}

/** Lets the saves' answers reach the saves (their callbacks run as microtasks). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("what the saves of a running record tell of the record the store holds", () => {
  it("running, when the store took it before the run began (an async start, a keyed sync run)", () => {
    const { save, onFailure } = heldSave();
    expect(new RunningRecordSaves(save, onFailure, true).held()).toBe("running");
  });

  it("none, when the store refused the only save of a new sync run's record", async () => {
    const { save, answers, failures, onFailure } = heldSave();
    const saves = new RunningRecordSaves(save, onFailure, false);
    saves.saveNow(running);
    expect(saves.held()).toBe("running-or-none");
    answers[0]?.(false);
    await settle();
    expect(failures).toEqual([refusal]);
    expect(saves.held()).toBe("none");
  });

  it("running, when the store took the first save, or a later one after refusing the first", async () => {
    const { save, answers, onFailure } = heldSave();
    const taken = new RunningRecordSaves(save, onFailure, false);
    taken.saveNow(running);
    answers[0]?.(true);
    await settle();
    expect(taken.held()).toBe("running");

    const later = new RunningRecordSaves(save, onFailure, false);
    later.saveNow(running);
    later.change(running);
    answers[1]?.(false);
    await settle();
    // The second save goes once the first is answered.
    expect(later.held()).toBe("running-or-none");
    answers[2]?.(true);
    await settle();
    expect(later.held()).toBe("running");
  });

  it("none, when the run ended before a change was saved: it is dropped, so no save waits", async () => {
    const { save, answers, onFailure } = heldSave();
    const saves = new RunningRecordSaves(save, onFailure, false);
    saves.saveNow(running);
    saves.change(running);
    saves.end();
    answers[0]?.(false);
    await settle();
    expect(answers).toHaveLength(1);
    expect(saves.held()).toBe("none");
  });
});
