import { describe, expect, it } from "vitest";
import { FairSlots, type ReleaseSlot } from "../../src/isolation/fair-slots.js";

/** Acquires a slot for `owner` and notes, in `granted`, the label once it has one. */
function take(slots: FairSlots, owner: string, label: string, granted: string[], signal?: AbortSignal) {
  return slots.acquire(owner, signal).then((release) => {
    granted.push(label);
    return release;
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("FairSlots", () => {
  it("lets one owner alone use every slot, and queues beyond them", async () => {
    const slots = new FairSlots(2);
    const granted: string[] = [];
    const first = take(slots, "alice", "a1", granted);
    const second = take(slots, "alice", "a2", granted);
    void take(slots, "alice", "a3", granted);
    await settle();
    expect(granted).toEqual(["a1", "a2"]);
    expect(slots.waiting).toBe(1);
    (await first)();
    await settle();
    expect(granted).toEqual(["a1", "a2", "a3"]);
    expect(slots.waiting).toBe(0);
    (await second)();
  });

  it("gives a freed slot to another owner waiting behind one owner's burst", async () => {
    const slots = new FairSlots(1);
    const granted: string[] = [];
    const releases: Promise<ReleaseSlot>[] = [];
    for (const label of ["a1", "a2", "a3", "a4"]) releases.push(take(slots, "alice", label, granted));
    const bob = take(slots, "bob", "b1", granted);
    await settle();
    expect(granted).toEqual(["a1"]);
    (await releases[0])?.();
    await settle();
    // Bob has been served least recently (never): he goes before alice's next.
    expect(granted).toEqual(["a1", "b1"]);
    (await bob)();
    await settle();
    expect(granted).toEqual(["a1", "b1", "a2"]);
  });

  it("serves the owner holding fewest slots first, then the least recently served, each in its own order", async () => {
    const slots = new FairSlots(2);
    const granted: string[] = [];
    const a1 = take(slots, "alice", "a1", granted);
    const a2 = take(slots, "alice", "a2", granted);
    void take(slots, "alice", "a3", granted);
    void take(slots, "bob", "b1", granted);
    void take(slots, "bob", "b2", granted);
    void take(slots, "carol", "c1", granted);
    await settle();
    (await a1)();
    await settle();
    // Alice holds one slot, bob and carol none and were never served: bob, who asked first.
    expect(granted.slice(2)).toEqual(["b1"]);
    (await a2)();
    await settle();
    // Alice holds none but was served; bob holds one; carol holds none and was never served.
    expect(granted.slice(3)).toEqual(["c1"]);
  });

  it("withdraws a waiter whose signal fires, and hands the slot to the next one", async () => {
    const slots = new FairSlots(1);
    const granted: string[] = [];
    const held = take(slots, "alice", "a1", granted);
    const cancel = new AbortController();
    const withdrawn = take(slots, "bob", "b1", granted, cancel.signal);
    void take(slots, "carol", "c1", granted);
    cancel.abort("cancel");
    await expect(withdrawn).rejects.toBe("cancel");
    expect(slots.waiting).toBe(1);
    (await held)();
    await settle();
    expect(granted).toEqual(["a1", "c1"]);
    // A signal already fired never queues.
    await expect(slots.acquire("dave", cancel.signal)).rejects.toBe("cancel");
    expect(slots.waiting).toBe(0);
  });

  it("ignores a release called twice (the slot is given back once)", async () => {
    const slots = new FairSlots(1);
    const granted: string[] = [];
    const release = await take(slots, "alice", "a1", granted);
    void take(slots, "bob", "b1", granted);
    void take(slots, "carol", "c1", granted);
    release();
    release();
    await settle();
    expect(granted).toEqual(["a1", "b1"]);
    expect(slots.waiting).toBe(1);
  });
});
