import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WorkQueue } from "../../src/core/execution/work-queue.js";
import type { ReleaseSlot } from "../../src/core/fair-slots.js";

/** A queue whose jobs end when the test says: `finish(label)`. */
function queueOf(concurrency: number) {
  const started: string[] = [];
  const endings = new Map<string, () => void>();
  const queue = new WorkQueue<string>(concurrency, (label) => {
    started.push(label);
    return new Promise<void>((resolve) => endings.set(label, resolve));
  });
  const finish = async (label: string) => {
    endings.get(label)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, started, finish };
}

describe("WorkQueue", () => {
  it("runs at most its concurrency at once, one owner's jobs in arrival order", async () => {
    const { queue, started, finish } = queueOf(2);
    for (const label of ["a1", "a2", "a3", "a4"]) queue.push(label, "alice", label);
    expect(started).toEqual(["a1", "a2"]);
    expect(queue.pending).toBe(2);
    await finish("a2");
    expect(started).toEqual(["a1", "a2", "a3"]);
    expect(queue.room).toBe(0);
  });

  it("starts another owner's job when a slot frees, not after one owner's whole burst", async () => {
    const { queue, started, finish } = queueOf(2);
    for (const label of ["a1", "a2", "a3", "a4", "a5"]) queue.push(label, "alice", label);
    queue.push("b1", "bob", "b1");
    expect(started).toEqual(["a1", "a2"]);
    await finish("a1");
    // Bob holds no slot, alice one: bob's job goes first.
    expect(started).toEqual(["a1", "a2", "b1"]);
    await finish("a2");
    expect(started).toEqual(["a1", "a2", "b1", "a3"]);
  });

  it("takes a waiting job out by its id, whatever its owner, and none that runs", async () => {
    const { queue, started, finish } = queueOf(1);
    queue.push("a1", "alice", "a1");
    queue.push("b1", "bob", "b1");
    queue.push("c1", "carol", "c1");
    expect(queue.remove("a1")).toBeUndefined();
    expect(queue.remove("b1")).toBe("b1");
    expect(queue.pending).toBe(1);
    await finish("a1");
    expect(started).toEqual(["a1", "c1"]);
  });

  it("starts nothing more once stopping", async () => {
    const { queue, started, finish } = queueOf(1);
    queue.push("a1", "alice", "a1");
    queue.push("b1", "bob", "b1");
    queue.stopStarting();
    await finish("a1");
    expect(started).toEqual(["a1"]);
    expect(queue.pending).toBe(1);
  });
});

// Audit 22, security #2: one owner holding every slot with runs that end only at their
// timeouts kept every other owner's async executions queued until then.
describe("WorkQueue taking a slot back for another owner's job", () => {
  const RECLAIM_AFTER_MS = 5_000;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A queue whose jobs note, in `asked`, each label asked to give its slot back; `idle` ones go first. */
  function reclaimingQueue(concurrency: number) {
    const started: string[] = [];
    const asked: string[] = [];
    const idle = new Set<string>();
    const slots = new Map<string, ReleaseSlot>();
    const queue = new WorkQueue<string>(
      concurrency,
      (label, release) => {
        started.push(label);
        slots.set(label, release);
        return new Promise<void>(() => {});
      },
      {
        reclaim: (label) => asked.push(label),
        idle: (label) => idle.has(label),
        reclaimAfterMs: RECLAIM_AFTER_MS,
      },
    );
    return { queue, started, asked, idle, slots };
  }

  it("asks one owner's job to give a slot back once another owner's job waited, and a slot given up starts it", async () => {
    const { queue, started, asked, idle, slots } = reclaimingQueue(2);
    for (const label of ["a1", "a2", "a3"]) queue.push(label, "alice", label);
    queue.push("b1", "bob", "b1");
    idle.add("a2");
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS - 1_000);
    expect(asked).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    // The job that can give its slot up losing nothing is asked, not the longer-held one.
    expect(asked).toEqual(["a2"]);
    // Its job goes on without the slot: bob's starts, not alice's third.
    slots.get("a2")?.();
    expect(started).toEqual(["a1", "a2", "b1"]);
    expect(queue.pending).toBe(1);
    // Alice and bob hold one each: nothing more is asked.
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(asked).toEqual(["a2"]);
  });

  it("asks nothing back of an owner alone, or once stopping", async () => {
    const alone = reclaimingQueue(2);
    for (const label of ["a1", "a2", "a3"]) alone.queue.push(label, "alice", label);
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(alone.asked).toEqual([]);

    const stopping = reclaimingQueue(2);
    for (const label of ["a1", "a2"]) stopping.queue.push(label, "alice", label);
    stopping.queue.push("b1", "bob", "b1");
    stopping.queue.stopStarting();
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(stopping.asked).toEqual([]);
  });
});
