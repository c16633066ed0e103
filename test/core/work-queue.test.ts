import { describe, expect, it } from "vitest";
import { WorkQueue } from "../../src/core/execution/work-queue.js";

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
