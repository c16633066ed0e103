/** Gives back a slot taken with `FairSlots.acquire`; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  resolve: (release: ReleaseSlot) => void;
  reject: (reason: unknown) => void;
}

interface OwnerShare {
  waiting: Waiter[];
  /** Slots the owner holds now. */
  holding: number;
  /** When the owner last got a slot (a sequence number): the least recently served goes first. */
  servedAt: number;
}

/**
 * A fixed number of slots (the skill host's worker threads) shared fairly between owners.
 * A slot that frees goes to the waiting owner holding the fewest slots, and among those to
 * the one served least recently; an owner's own runs keep their order. First come, first
 * served would let one owner's burst of long runs (each key may hold hundreds) make every
 * other owner's run wait behind all of it and time out there; this way another owner waits
 * for one slot to free, not for the burst. Nothing is reserved: an owner alone uses every
 * slot.
 */
export class FairSlots {
  private readonly owners = new Map<string, OwnerShare>();
  private free: number;
  private waitingCount = 0;
  private served = 0;

  constructor(slots: number) {
    this.free = slots;
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Resolves with the slot's release once the owner has one. A signal that fires while it
   * waits withdraws it (rejecting with the signal's reason): its run is over already.
   */
  acquire(owner: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    const share = this.shareOf(owner);
    if (this.free > 0 && share.waiting.length === 0) {
      this.free--;
      return Promise.resolve(this.grant(owner, share));
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      const withdraw = () => {
        const index = share.waiting.indexOf(waiter);
        if (index < 0) return;
        share.waiting.splice(index, 1);
        this.waitingCount--;
        this.forgetIfIdle(owner, share);
        reject(signal?.reason);
      };
      if (signal?.aborted) {
        reject(signal.reason);
        this.forgetIfIdle(owner, share);
        return;
      }
      signal?.addEventListener("abort", withdraw, { once: true });
      waiter.resolve = (release) => {
        signal?.removeEventListener("abort", withdraw);
        resolve(release);
      };
      share.waiting.push(waiter);
      this.waitingCount++;
    });
  }

  private grant(owner: string, share: OwnerShare): ReleaseSlot {
    share.holding++;
    share.servedAt = ++this.served;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      share.holding--;
      this.forgetIfIdle(owner, share);
      this.handOn();
    };
  }

  /** A freed slot goes to the next owner in line, or stays free. */
  private handOn(): void {
    let next: [string, OwnerShare] | undefined;
    for (const entry of this.owners) {
      const share = entry[1];
      if (share.waiting.length === 0) continue;
      const best = next?.[1];
      if (
        !best ||
        share.holding < best.holding ||
        (share.holding === best.holding && share.servedAt < best.servedAt)
      ) {
        next = entry;
      }
    }
    if (!next) {
      this.free++;
      return;
    }
    const [owner, share] = next;
    const waiter = share.waiting.shift() as Waiter;
    this.waitingCount--;
    waiter.resolve(this.grant(owner, share));
  }

  private shareOf(owner: string): OwnerShare {
    let share = this.owners.get(owner);
    if (!share) {
      // Never served (or not since it last went idle): first in line among equals.
      share = { waiting: [], holding: 0, servedAt: 0 };
      this.owners.set(owner, share);
    }
    return share;
  }

  /** Owners with nothing held or waiting are dropped: the map stays as small as the load. */
  private forgetIfIdle(owner: string, share: OwnerShare): void {
    if (share.holding === 0 && share.waiting.length === 0 && this.owners.get(owner) === share) {
      this.owners.delete(owner);
    }
  }
}
