import { FairLine } from "./fair-line.js";

/** Gives back a slot taken with `FairSlots.acquire`; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** Why a holder is asked to give its slot back (see `FairSlots`), for the words of its outcome. */
export interface Reclaim {
  /** How long the holder has held the slot. */
  heldMs: number;
  /** How long the other owner's run it is wanted for has waited. */
  waitedMs: number;
}

export interface SlotRequest {
  /** A signal that fires while the run waits withdraws it (see `acquire`). */
  signal?: AbortSignal;
  /**
   * Called at most once, while the slot is held, when it is wanted back for another
   * owner's run (see `FairSlots`): the holder should end its work soon, or give the slot
   * up, and release it. A holder that cannot do either passes none, and its slot is never
   * reclaimed.
   */
  onReclaim?: (reclaim: Reclaim) => void;
  /**
   * Whether the holder could give its slot up now losing nothing (its run waits for
   * something else and has not begun): such a slot is asked back before one whose run
   * would be stopped.
   */
  idle?: () => boolean;
}

export interface FairSlotsOptions {
  /**
   * How long another owner's run must have waited before a slot is reclaimed for it
   * (default 5 s): long enough that turns freeing by themselves settle most waits.
   */
  reclaimAfterMs?: number;
}

interface Waiter {
  owner: string;
  /** When it began to wait (`performance.now()`). */
  sinceMs: number;
  onReclaim: SlotRequest["onReclaim"];
  idle: SlotRequest["idle"];
  /** Hands it the slot taken in its name. */
  grant: (release: ReleaseSlot) => void;
}

interface HeldSlot {
  owner: string;
  /** When it was taken (`performance.now()`). */
  sinceMs: number;
  onReclaim: SlotRequest["onReclaim"];
  idle: SlotRequest["idle"];
}

/**
 * A fixed number of slots (the skill host's worker threads, the runner's async execution
 * slots) shared fairly between owners: a slot that frees goes to the next waiter in a
 * `FairLine`, so another owner waits for one slot to free, not for one owner's burst of
 * long runs.
 *
 * That alone lets one owner starve the others when a slot frees only at a run's timeout
 * (a catastrophic regular expression holds its thread up to 300 s, a long `util.wait` its
 * async slot): an owner who takes every slot while none waits keeps them all, and another
 * owner's run waits until its own timeout without starting. So once a run has waited
 * `reclaimAfterMs`, a slot is reclaimed for it from the owner holding the most, if that
 * owner holds more than one beyond what the waiting run's owner holds (a slot whose holder
 * can give it up losing nothing first, else its longest-held slot: that run has had the
 * longest turn). Owners thus converge on an even share while others wait (with two slots,
 * one owner keeps one of them); an owner alone still uses every slot, and nothing is
 * reserved. One reclaim is under way at a time: its slot frees (to the waiting owner
 * holding the fewest) before another is judged.
 */
export class FairSlots {
  private readonly line = new FairLine<Waiter>();
  private readonly held = new Set<HeldSlot>();
  private readonly reclaimAfterMs: number;
  private freeSlots: number;
  /** False once `stopGranting` was called (shutting down). */
  private granting = true;
  /** The slot asked back and not yet released. */
  private reclaiming: HeldSlot | undefined;
  /** Looks for a run waiting too long, while any waits. */
  private watch: NodeJS.Timeout | undefined;

  constructor(slots: number, options: FairSlotsOptions = {}) {
    this.freeSlots = slots;
    this.reclaimAfterMs = options.reclaimAfterMs ?? 5_000;
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    return this.line.length;
  }

  /** Slots no run holds. */
  get free(): number {
    return this.freeSlots;
  }

  /**
   * Resolves with the slot's release once the owner has one. A signal that fires while it
   * waits withdraws it (rejecting with the signal's reason): its run is over already.
   */
  acquire(owner: string, { signal, ...request }: SlotRequest = {}): Promise<ReleaseSlot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<ReleaseSlot>((resolve, reject) => {
      let granted = false;
      const withdrawOnAbort = () => {
        if (withdraw()) reject(signal?.reason);
      };
      const withdraw = this.request(
        owner,
        (release) => {
          granted = true;
          signal?.removeEventListener("abort", withdrawOnAbort);
          resolve(release);
        },
        request,
      );
      if (!granted) signal?.addEventListener("abort", withdrawOnAbort, { once: true });
    });
  }

  /**
   * As `acquire`, for a caller that must start its work in the same turn as it gets the
   * slot: `grant` is called with the release as soon as the owner has one (before this
   * returns, when one is free). Returns what withdraws the request while it waits: true
   * when it did, false when the slot was granted already (or the request withdrawn).
   */
  request(
    owner: string,
    grant: (release: ReleaseSlot) => void,
    { onReclaim, idle }: Omit<SlotRequest, "signal"> = {},
  ): () => boolean {
    if (this.granting && this.freeSlots > 0 && !this.line.hasWaiting(owner)) {
      this.freeSlots--;
      this.line.hold(owner);
      grant(this.holdFor(owner, onReclaim, idle));
      return () => false;
    }
    const waiter: Waiter = { owner, sinceMs: performance.now(), onReclaim, idle, grant };
    this.line.push(owner, waiter);
    this.watchWaits();
    return () => {
      if (!this.line.remove((item) => item === waiter)) return false;
      this.stopWatchingIfNoneWaits();
      return true;
    };
  }

  /**
   * Grants no more slots and reclaims none (shutting down): a slot that frees stays free,
   * and the waiters wait.
   */
  stopGranting(): void {
    this.granting = false;
    this.stopWatching();
  }

  private holdFor(
    owner: string,
    onReclaim: SlotRequest["onReclaim"],
    idle: SlotRequest["idle"],
  ): ReleaseSlot {
    const slot: HeldSlot = { owner, sinceMs: performance.now(), onReclaim, idle };
    this.held.add(slot);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(slot);
      if (this.reclaiming === slot) this.reclaiming = undefined;
      this.line.release(owner);
      this.handOn();
    };
  }

  /** A freed slot goes to the next waiter in line, or stays free. */
  private handOn(): void {
    const next = this.granting ? this.line.take() : undefined;
    this.stopWatchingIfNoneWaits();
    if (!next) {
      this.freeSlots++;
      return;
    }
    next.item.grant(this.holdFor(next.owner, next.item.onReclaim, next.item.idle));
  }

  /**
   * Asks a slot back for a run that has waited `reclaimAfterMs`, when the rule of the
   * class allows it (the one place that rule lives).
   */
  private reclaimForLongWaits(): void {
    if (this.reclaiming || !this.granting) return;
    const nowMs = performance.now();
    const holding = new Map<string, number>();
    for (const slot of this.held) holding.set(slot.owner, (holding.get(slot.owner) ?? 0) + 1);
    const holds = (owner: string) => holding.get(owner) ?? 0;
    // The long-waiting run whose owner holds the fewest slots: the next in line for one.
    let starved: Waiter | undefined;
    for (const waiter of this.line.items()) {
      if (nowMs - waiter.sinceMs < this.reclaimAfterMs) continue;
      if (!starved || holds(waiter.owner) < holds(starved.owner)) starved = waiter;
    }
    if (!starved) return;
    // An owner holding at most one slot beyond the starved one's owner keeps its slots.
    const evenShare = holds(starved.owner) + 1;
    let taken: HeldSlot | undefined;
    let takenIdle = false;
    for (const slot of this.held) {
      if (!slot.onReclaim || holds(slot.owner) <= evenShare) continue;
      const idle = slot.idle?.() ?? false;
      const better =
        !taken ||
        holds(slot.owner) > holds(taken.owner) ||
        (holds(slot.owner) === holds(taken.owner) &&
          (idle !== takenIdle ? idle : slot.sinceMs < taken.sinceMs));
      if (better) {
        taken = slot;
        takenIdle = idle;
      }
    }
    if (!taken?.onReclaim) return;
    this.reclaiming = taken;
    taken.onReclaim({ heldMs: nowMs - taken.sinceMs, waitedMs: nowMs - starved.sinceMs });
  }

  private watchWaits(): void {
    if (this.watch || !this.granting) return;
    this.watch = setInterval(() => this.reclaimForLongWaits(), Math.min(WATCH_EVERY_MS, this.reclaimAfterMs));
    this.watch.unref();
  }

  private stopWatchingIfNoneWaits(): void {
    if (this.line.length === 0) this.stopWatching();
  }

  private stopWatching(): void {
    if (!this.watch) return;
    clearInterval(this.watch);
    this.watch = undefined;
  }
}

/** How often waits are looked at (a reclaim comes at most this late). */
const WATCH_EVERY_MS = 1_000;
