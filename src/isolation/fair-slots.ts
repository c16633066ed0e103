import { FairLine } from "../core/fair-line.js";

/** Gives back a slot taken with `FairSlots.acquire`; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  resolve: (release: ReleaseSlot) => void;
  reject: (reason: unknown) => void;
}

/**
 * A fixed number of slots (the skill host's worker threads) shared fairly between owners:
 * a slot that frees goes to the next waiter in a `FairLine`, so another owner waits for
 * one slot to free, not for one owner's burst of long runs.
 */
export class FairSlots {
  private readonly line = new FairLine<Waiter>();
  private free: number;

  constructor(slots: number) {
    this.free = slots;
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    return this.line.length;
  }

  /**
   * Resolves with the slot's release once the owner has one. A signal that fires while it
   * waits withdraws it (rejecting with the signal's reason): its run is over already.
   */
  acquire(owner: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.free > 0 && !this.line.hasWaiting(owner)) {
      this.free--;
      this.line.hold(owner);
      return Promise.resolve(this.releaseFor(owner));
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      const withdraw = () => {
        if (this.line.remove((item) => item === waiter)) reject(signal?.reason);
      };
      signal?.addEventListener("abort", withdraw, { once: true });
      waiter.resolve = (release) => {
        signal?.removeEventListener("abort", withdraw);
        resolve(release);
      };
      this.line.push(owner, waiter);
    });
  }

  private releaseFor(owner: string): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.line.release(owner);
      this.handOn();
    };
  }

  /** A freed slot goes to the next waiter in line, or stays free. */
  private handOn(): void {
    const next = this.line.take();
    if (!next) {
      this.free++;
      return;
    }
    next.item.resolve(this.releaseFor(next.owner));
  }
}
