import { describe, expect, it, vi } from "vitest";
import { CoalescedRuns } from "../../src/core/coalesced-runs.js";

/** A task whose runs each wait for the test to end them, numbered from 1 as they start. */
function gatedTask() {
  const ends: ((outcome: Error | undefined) => void)[] = [];
  let started = 0;
  const task = vi.fn(() => {
    const run = ++started;
    return new Promise<number>((resolve, reject) => ends.push((err) => (err ? reject(err) : resolve(run))));
  });
  return { task, end: (err?: Error) => ends.shift()?.(err) };
}

describe("CoalescedRuns", () => {
  it("answers a call made during a run with the next run, shared by every call made meanwhile", async () => {
    const { task, end } = gatedTask();
    const runs = new CoalescedRuns(task);
    const first = runs.run();
    expect(task).toHaveBeenCalledTimes(1); // started within the call
    const during = [runs.run(), runs.run(), runs.run()];
    expect(task).toHaveBeenCalledTimes(1); // not before the run under way ends
    end();
    expect(await first).toBe(1);
    await vi.waitFor(() => expect(task).toHaveBeenCalledTimes(2));
    const afterStart = runs.run(); // the next run started before this call: one more
    end();
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
    await vi.waitFor(() => expect(task).toHaveBeenCalledTimes(3));
    end();
    expect(await afterStart).toBe(3);
  });

  it("runs the next after a run that failed, and rejects only the calls that run answered", async () => {
    const { task, end } = gatedTask();
    const runs = new CoalescedRuns(task);
    const failing = runs.run();
    const next = runs.run();
    end(new Error("read failed"));
    await expect(failing).rejects.toThrow("read failed");
    await vi.waitFor(() => expect(task).toHaveBeenCalledTimes(2));
    end();
    expect(await next).toBe(2);
  });

  it("says when it is idle: once a run ends with none waiting, and settled() waits for that", async () => {
    const { task, end } = gatedTask();
    const onIdle = vi.fn();
    const runs = new CoalescedRuns(task, onIdle);
    void runs.run();
    void runs.run();
    let settled = false;
    const waiting = runs.settled().then(() => {
      settled = true;
    });
    end();
    await vi.waitFor(() => expect(task).toHaveBeenCalledTimes(2));
    expect(onIdle).not.toHaveBeenCalled(); // a run was waiting
    expect(settled).toBe(false);
    end();
    await waiting;
    expect(onIdle).toHaveBeenCalledTimes(1);
  });
});
