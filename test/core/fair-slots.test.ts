import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FairSlots, type Reclaim, type ReleaseSlot } from "../../src/core/fair-slots.js";

/** Acquires a slot for `owner` and notes, in `granted`, the label once it has one. */
function take(
  slots: FairSlots,
  owner: string,
  label: string,
  granted: string[],
  signal?: AbortSignal,
  onReclaim?: (reclaim: Reclaim) => void,
) {
  return slots.acquire(owner, { signal, onReclaim }).then((release) => {
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
    await expect(slots.acquire("dave", { signal: cancel.signal })).rejects.toBe("cancel");
    expect(slots.waiting).toBe(0);
  });

  it("grants a request in the same turn when a slot is free, and withdraws one that waits", () => {
    const slots = new FairSlots(1);
    const granted: string[] = [];
    const releases: ReleaseSlot[] = [];
    const grant = (label: string) => (release: ReleaseSlot) => {
      granted.push(label);
      releases.push(release);
    };
    expect(slots.request("alice", grant("a1"))()).toBe(false);
    expect(granted).toEqual(["a1"]);
    const withdrawBob = slots.request("bob", grant("b1"));
    slots.request("carol", grant("c1"));
    expect(withdrawBob()).toBe(true);
    expect(withdrawBob()).toBe(false);
    releases[0]?.();
    // The freed slot goes to carol within the release, with bob withdrawn.
    expect(granted).toEqual(["a1", "c1"]);
  });

  it("grants nothing once stopped: a freed slot stays free and the waiters wait", () => {
    const slots = new FairSlots(1);
    const granted: string[] = [];
    let release: ReleaseSlot = () => {};
    slots.request("alice", (r) => {
      granted.push("a1");
      release = r;
    });
    slots.request("bob", () => granted.push("b1"));
    slots.stopGranting();
    release();
    slots.request("carol", () => granted.push("c1"));
    expect(granted).toEqual(["a1"]);
    expect([slots.free, slots.waiting]).toEqual([1, 2]);
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

// Audit 22, security #2: an owner who took every thread with runs that end only at their
// timeout (catastrophic regular expressions) left other owners' runs waiting, never
// started, until their own timeouts.
describe("FairSlots reclaiming slots for another owner's long wait", () => {
  const RECLAIM_AFTER_MS = 5_000;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Slots whose holders note, in `asked`, each label asked to give its slot back. */
  function reclaimable(count: number) {
    const slots = new FairSlots(count, { reclaimAfterMs: RECLAIM_AFTER_MS });
    const granted: string[] = [];
    const asked: { label: string; reclaim: Reclaim }[] = [];
    const hold = (owner: string, label: string) =>
      take(slots, owner, label, granted, undefined, (reclaim) => asked.push({ label, reclaim }));
    return { slots, granted, asked, hold };
  }

  it("asks the most recently taken slot of an owner holding every one back once another owner waited, and hands it on", async () => {
    const { granted, asked, hold } = reclaimable(2);
    void hold("alice", "a1");
    await vi.advanceTimersByTimeAsync(100);
    const a2 = hold("alice", "a2");
    void hold("bob", "b1");
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS - 1_000);
    expect(asked).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    // Audit 23, changes #5: the run with the least work done is the one stopped, not the oldest.
    expect(asked).toEqual([
      {
        label: "a2",
        reclaim: { heldMs: expect.any(Number), waitedMs: expect.any(Number) },
      },
    ]);
    expect(asked[0]?.reclaim.heldMs).toBeGreaterThanOrEqual(RECLAIM_AFTER_MS);
    expect(asked[0]?.reclaim.heldMs).toBeLessThan(RECLAIM_AFTER_MS + 100);
    expect(asked[0]?.reclaim.waitedMs).toBeGreaterThanOrEqual(RECLAIM_AFTER_MS);
    // One reclaim at a time: a slot still asked back is not asked twice, nor is another.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked.map(({ label }) => label)).toEqual(["a2"]);
    (await a2)();
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(["a1", "a2", "b1"]);
    // Alice and bob hold one each: an even share, nothing more is reclaimed.
    void hold("alice", "a3");
    void hold("bob", "b2");
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(asked.map(({ label }) => label)).toEqual(["a2"]);
  });

  it("lets an owner alone keep every slot however long its own runs wait", async () => {
    const { slots, asked, hold } = reclaimable(2);
    void hold("alice", "a1");
    void hold("alice", "a2");
    void hold("alice", "a3");
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(slots.waiting).toBe(1);
    expect(asked).toEqual([]);
  });

  it("reclaims nothing for a run withdrawn before it waited long", async () => {
    const { slots, asked, hold } = reclaimable(2);
    void hold("alice", "a1");
    void hold("alice", "a2");
    const cancel = new AbortController();
    const bob = take(slots, "bob", "b1", [], cancel.signal);
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS / 2);
    cancel.abort("cancel");
    await expect(bob).rejects.toBe("cancel");
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(asked).toEqual([]);
  });

  it("brings several waiting owners to an even share, one reclaim after another", async () => {
    const { granted, asked, hold } = reclaimable(4);
    const alice: Promise<ReleaseSlot>[] = [];
    for (const label of ["a1", "a2", "a3", "a4"]) {
      alice.push(hold("alice", label));
      await vi.advanceTimersByTimeAsync(10);
    }
    void hold("bob", "b1");
    void hold("carol", "c1");
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS);
    expect(asked.map(({ label }) => label)).toEqual(["a4"]);
    (await alice[3])?.();
    await vi.advanceTimersByTimeAsync(1_000);
    // Alice still holds three, carol none: a second one of alice's is asked back.
    expect(asked.map(({ label }) => label)).toEqual(["a4", "a3"]);
    (await alice[2])?.();
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(granted.slice(4).sort()).toEqual(["b1", "c1"]);
    // Alice two, bob one, carol one: even enough.
    expect(asked.map(({ label }) => label)).toEqual(["a4", "a3"]);
  });

  it("asks back a slot whose holder can give it up losing nothing before a more recent one", async () => {
    const slots = new FairSlots(4, { reclaimAfterMs: RECLAIM_AFTER_MS });
    const asked: string[] = [];
    const idle = new Set(["a2"]);
    const hold = async (label: string) => {
      const release = await slots.acquire("alice", {
        onReclaim: () => asked.push(label),
        idle: () => idle.has(label),
      });
      await vi.advanceTimersByTimeAsync(10);
      return release;
    };
    const held = [await hold("a1"), await hold("a2"), await hold("a3"), await hold("a4")];
    void slots.acquire("bob", { onReclaim: () => asked.push("b1") });
    void slots.acquire("bob", { onReclaim: () => asked.push("b2") });
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS);
    expect(asked).toEqual(["a2"]);
    held[1]?.();
    // Alice holds three, bob one: with none idle, alice's most recent goes.
    idle.clear();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(asked).toEqual(["a2", "a4"]);
  });

  it("reclaims nothing once stopped", async () => {
    const { slots, asked, hold } = reclaimable(2);
    void hold("alice", "a1");
    void hold("alice", "a2");
    void hold("bob", "b1");
    slots.stopGranting();
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(asked).toEqual([]);
  });

  it("never asks back a slot whose holder cannot be stopped", async () => {
    const slots = new FairSlots(2, { reclaimAfterMs: RECLAIM_AFTER_MS });
    const granted: string[] = [];
    void take(slots, "alice", "a1", granted);
    void take(slots, "alice", "a2", granted);
    void take(slots, "bob", "b1", granted);
    await vi.advanceTimersByTimeAsync(3 * RECLAIM_AFTER_MS);
    expect(granted).toEqual(["a1", "a2"]);
  });
});

// Audit 23, changes #5: a trickle of another owner's short runs stopped one owner's long
// runs one after another: each short run waited 5 s and had a slot reclaimed for it, ran
// 10 ms, and its slot went straight back to the first owner's queued runs, so the next
// short run waited and stopped another. A run whose timeout came before it could use the
// slot had one reclaimed all the same.
describe("FairSlots reclaiming at the least cost to the owner it reclaims from", () => {
  const RECLAIM_AFTER_MS = 5_000;
  const CAP_FOR_MS = 60_000;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Two slots, both held by bob's long runs (b1, then b2), his b3 and b4 queued behind them. */
  async function bobHoldsBoth() {
    const slots = new FairSlots(2, { reclaimAfterMs: RECLAIM_AFTER_MS, capForMs: CAP_FOR_MS });
    const granted: string[] = [];
    const asked: string[] = [];
    const releases = new Map<string, ReleaseSlot>();
    const hold = (owner: string, label: string, deadlineMs?: number) =>
      slots.request(
        owner,
        (release) => {
          granted.push(label);
          releases.set(label, release);
        },
        { onReclaim: () => asked.push(label), deadlineMs },
      );
    hold("bob", "b1");
    await vi.advanceTimersByTimeAsync(1_000);
    for (const label of ["b2", "b3", "b4"]) hold("bob", label);
    const release = (label: string) => releases.get(label)?.();
    return { slots, granted, asked, hold, release };
  }

  it("stops one of the owner's runs for a trickle of another owner's short runs, not one per short run", async () => {
    const { slots, granted, asked, hold, release } = await bobHoldsBoth();
    hold("alice", "a1");
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS);
    expect(asked).toEqual(["b2"]);
    release("b2");
    expect(granted).toEqual(["b1", "b2", "a1"]);
    // Alice's short runs, one a second for a minute: the freed slot is kept for them.
    for (let i = 2; i <= 60; i++) {
      await vi.advanceTimersByTimeAsync(10);
      release(`a${i - 1}`);
      expect(slots.free).toBe(1);
      await vi.advanceTimersByTimeAsync(990);
      hold("alice", `a${i}`);
      expect(granted.at(-1)).toBe(`a${i}`);
    }
    release("a60");
    expect(asked).toEqual(["b2"]);
    expect(granted.filter((label) => label.startsWith("b"))).toEqual(["b1", "b2"]);
    // Bob's own new run does not take the slot kept for others either.
    hold("bob", "b5");
    expect(slots.free).toBe(1);
    // Once alice has held or waited for nothing for a minute, bob has both slots again.
    await vi.advanceTimersByTimeAsync(CAP_FOR_MS - 1_000);
    expect(granted.at(-1)).toBe("a60");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(granted.at(-1)).toBe("b3");
    expect(slots.free).toBe(0);
  });

  it("keeps the cap while another owner still holds a slot, however long", async () => {
    const { slots, granted, asked, hold, release } = await bobHoldsBoth();
    hold("alice", "a1");
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS);
    release("b2");
    // Alice's run goes on for five minutes, then ends.
    await vi.advanceTimersByTimeAsync(5 * CAP_FOR_MS);
    expect(granted.at(-1)).toBe("a1");
    release("a1");
    expect(slots.free).toBe(1);
    // Her next run, within the minute, finds a slot at once.
    await vi.advanceTimersByTimeAsync(CAP_FOR_MS / 2);
    hold("alice", "a2");
    expect(granted.at(-1)).toBe("a2");
    expect(asked).toEqual(["b2"]);
  });

  it("reclaims nothing for a run whose deadline comes before it could use the slot", async () => {
    const { asked, hold } = await bobHoldsBoth();
    // Its timeout comes 1.5 s after a reclaim would: too soon for a new thread and a run.
    hold("alice", "a1", performance.now() + RECLAIM_AFTER_MS + 1_500);
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS + 3_000);
    expect(asked).toEqual([]);
    // One with time to use it gets a slot.
    hold("carol", "c1", performance.now() + RECLAIM_AFTER_MS + 10_000);
    await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS);
    expect(asked).toEqual(["b2"]);
  });

  it("weighs the time a holder may take to let go against a waiter's deadline", async () => {
    const askedWith = async (releaseWithinMs: number) => {
      const slots = new FairSlots(2, { reclaimAfterMs: RECLAIM_AFTER_MS, releaseWithinMs });
      const asked: string[] = [];
      for (const label of ["b1", "b2"])
        slots.request("bob", () => {}, { onReclaim: () => asked.push(label) });
      slots.request("alice", () => {}, { deadlineMs: performance.now() + 2 * RECLAIM_AFTER_MS });
      await vi.advanceTimersByTimeAsync(RECLAIM_AFTER_MS + 1_000);
      slots.stopGranting();
      return asked;
    };
    // 5 s left once it waited 5 s: enough for a slot freed at once, not for one freed in 5 s.
    expect(await askedWith(0)).toHaveLength(1);
    expect(await askedWith(5_000)).toEqual([]);
  });

  it("tells a request that has to wait, and only one that does", () => {
    const slots = new FairSlots(1);
    const waits: string[] = [];
    slots.request("alice", () => {}, { onWait: () => waits.push("a1") });
    slots.request("bob", () => {}, { onWait: () => waits.push("b1") });
    expect(waits).toEqual(["b1"]);
  });
});
