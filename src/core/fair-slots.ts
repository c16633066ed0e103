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
  /** Called, before the request returns, when it has to wait: no slot is free for its owner now. */
  onWait?: () => void;
  /**
   * When the waiting run ends whether it got a slot or not (`performance.now()`: its
   * timeout). A slot is reclaimed for it only if that leaves it time to use the slot.
   */
  deadlineMs?: number;
}

export interface FairSlotsOptions {
  /**
   * How long another owner's run must have waited before a slot is reclaimed for it
   * (default 5 s): long enough that turns freeing by themselves settle most waits.
   */
  reclaimAfterMs?: number;
  /**
   * How long a holder asked to give its slot back may take to release it (default 0; a
   * worker thread's grace period before it is terminated).
   */
  releaseWithinMs?: number;
  /**
   * How long an owner a slot was reclaimed from stays capped at what it kept, once no
   * other owner holds or waits for a slot (default 60 s).
   */
  capForMs?: number;
}

interface Waiter {
  owner: string;
  /** When it began to wait (`performance.now()`). */
  sinceMs: number;
  /** When its run ends regardless (`performance.now()`), if it has such a deadline. */
  deadlineMs: number | undefined;
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

/** What an owner a slot was reclaimed from may hold for a while (see `FairSlots`). */
interface Cap {
  /** Slots it may hold while the cap stands. */
  limit: number;
  /** When another owner was last seen holding or waiting for a slot (`performance.now()`). */
  othersSeenMs: number;
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
 * owner holds more than one beyond what the waiting run's owner holds. Owners thus
 * converge on an even share while others wait (with two slots, one owner keeps one of
 * them); an owner alone still uses every slot, and nothing is reserved before a reclaim.
 * A reclaim costs its holder work, so it is made to cost as little as it can:
 * - the slot asked back is one whose holder can give it up losing nothing, else the
 *   owner's most recently taken one: its run has the least work done, its older runs finish;
 * - the owner it was reclaimed from is then capped at what it kept: no slot beyond that
 *   goes to it, freed or free, until no other owner has held or waited for one for
 *   `capForMs`. Handing the freed slot straight back to its queued runs let a trickle of
 *   another owner's short runs (each waiting 5 s, then running 10 ms) stop its long runs
 *   one after another; capped, the next short run finds a slot free;
 * - no slot is reclaimed for a run that would end (its deadline) before it could use it:
 *   it would only withdraw and leave the slot to the next in line.
 * One reclaim is under way at a time: its slot frees (to the waiting owner holding the
 * fewest) before another is judged. This class is the one place these rules live.
 */
export class FairSlots {
  private readonly line = new FairLine<Waiter>();
  private readonly held = new Set<HeldSlot>();
  private readonly caps = new Map<string, Cap>();
  private readonly reclaimAfterMs: number;
  private readonly releaseWithinMs: number;
  private readonly capForMs: number;
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
    this.releaseWithinMs = options.releaseWithinMs ?? 0;
    this.capForMs = options.capForMs ?? 60_000;
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
    { onReclaim, idle, onWait, deadlineMs }: Omit<SlotRequest, "signal"> = {},
  ): () => boolean {
    this.seeActive(owner);
    // A cap that lapsed since the last look lets its owner's waiters go first.
    this.grantFreeSlots();
    if (this.granting && this.freeSlots > 0 && !this.line.hasWaiting(owner) && !this.isCapped(owner)) {
      this.freeSlots--;
      this.line.hold(owner);
      grant(this.holdFor(owner, onReclaim, idle));
      return () => false;
    }
    const waiter: Waiter = { owner, sinceMs: performance.now(), deadlineMs, onReclaim, idle, grant };
    this.line.push(owner, waiter);
    this.watchWaits();
    onWait?.();
    return () => {
      if (!this.line.remove((item) => item === waiter)) return false;
      this.seeActive(owner);
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
      this.seeActive(owner);
      this.freeSlots++;
      this.grantFreeSlots();
    };
  }

  /** Free slots go to the waiters in line, in fair order, passing over capped owners. */
  private grantFreeSlots(): void {
    while (this.granting && this.freeSlots > 0) {
      const next = this.line.take((owner) => !this.isCapped(owner));
      if (!next) break;
      this.freeSlots--;
      next.item.grant(this.holdFor(next.owner, next.item.onReclaim, next.item.idle));
    }
    this.stopWatchingIfNoneWaits();
  }

  /** Whether the owner may have no more slots now: a cap stands and it holds its limit. */
  private isCapped(owner: string): boolean {
    const cap = this.caps.get(owner);
    if (!cap) return false;
    if (!this.capStands(owner, cap, performance.now())) {
      this.caps.delete(owner);
      return false;
    }
    return this.line.holding(owner) >= cap.limit;
  }

  /** A cap stands while another owner holds or waits for a slot, and `capForMs` after. */
  private capStands(owner: string, cap: Cap, nowMs: number): boolean {
    return this.line.hasOthersThan(owner) || nowMs - cap.othersSeenMs < this.capForMs;
  }

  /** The owner asks for, waits for or gives back a slot: every other owner's cap stands from now. */
  private seeActive(owner: string): void {
    if (this.caps.size === 0) return;
    const nowMs = performance.now();
    for (const [capped, cap] of this.caps) if (capped !== owner) cap.othersSeenMs = nowMs;
  }

  /** Caps the owner at `limit` slots (or lower, if it is capped lower already). */
  private capAt(owner: string, limit: number, nowMs: number): void {
    const cap = this.caps.get(owner);
    this.caps.set(owner, { limit: Math.min(limit, cap?.limit ?? limit), othersSeenMs: nowMs });
  }

  /** Looks at the waits: what a lapsed cap freed is granted, and a slot reclaimed if one must be. */
  private review(): void {
    if (!this.granting) return;
    const nowMs = performance.now();
    for (const [owner, cap] of this.caps) if (!this.capStands(owner, cap, nowMs)) this.caps.delete(owner);
    this.grantFreeSlots();
    this.reclaimForLongWaits(nowMs);
  }

  /**
   * Asks a slot back for a run that has waited `reclaimAfterMs`, when the rule of the
   * class allows it (the one place that rule lives).
   */
  private reclaimForLongWaits(nowMs: number): void {
    if (this.reclaiming || !this.granting) return;
    const holds = (owner: string) => this.line.holding(owner);
    // The long-waiting run whose owner holds the fewest slots: the next in line for one.
    // A capped owner's runs wait for their cap, not for a slot to be taken from another.
    let starved: Waiter | undefined;
    for (const waiter of this.line.items()) {
      if (nowMs - waiter.sinceMs < this.reclaimAfterMs) continue;
      if (!this.leavesTimeToUse(waiter, nowMs) || this.isCapped(waiter.owner)) continue;
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
          (idle !== takenIdle ? idle : slot.sinceMs > taken.sinceMs));
      if (better) {
        taken = slot;
        takenIdle = idle;
      }
    }
    if (!taken?.onReclaim) return;
    this.reclaiming = taken;
    this.capAt(taken.owner, holds(taken.owner) - 1, nowMs);
    taken.onReclaim({ heldMs: nowMs - taken.sinceMs, waitedMs: nowMs - starved.sinceMs });
  }

  /**
   * Whether a slot reclaimed now would reach the waiter with time to use it: its holder
   * may take `releaseWithinMs` to let go, and the waiter's run needs some time of its own.
   */
  private leavesTimeToUse(waiter: Waiter, nowMs: number): boolean {
    if (waiter.deadlineMs === undefined) return true;
    return waiter.deadlineMs - nowMs >= this.releaseWithinMs + TIME_TO_USE_MS;
  }

  private watchWaits(): void {
    if (this.watch || !this.granting) return;
    this.watch = setInterval(() => this.review(), Math.min(WATCH_EVERY_MS, this.reclaimAfterMs));
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

/**
 * The least time a run needs left, once a reclaimed slot reaches it, for the reclaim to be
 * worth a run's work: a new worker thread's start (the holder's may have been ended) and
 * a short run.
 */
const TIME_TO_USE_MS = 2_000;
