interface OwnerShare<T> {
  waiting: T[];
  /** Slots the owner holds now. */
  holding: number;
  /** When the owner last got a slot (a sequence number): the least recently served goes first. */
  servedAt: number;
}

/**
 * A line of items waiting for a few slots (worker threads, async execution slots), taken
 * in an order fair between owners: the next goes to the waiting owner holding the fewest
 * slots, and among those to the one served least recently; an owner's own items keep
 * their order. First come, first served would let one owner's burst of long runs (each
 * key may hold hundreds) make every other owner's run wait behind all of it; this way
 * another owner waits for one slot to free, not for the burst. Nothing is reserved: an
 * owner alone uses every slot.
 *
 * The line counts the slots each owner holds: `take` and `hold` add one, `release` gives
 * it back. What the slots are, and when one is free, is its user's business.
 */
export class FairLine<T> {
  private readonly owners = new Map<string, OwnerShare<T>>();
  private served = 0;
  private count = 0;

  /** Items waiting. */
  get length(): number {
    return this.count;
  }

  /** Every item waiting, owner by owner. */
  items(): T[] {
    return [...this.owners.values()].flatMap((share) => share.waiting);
  }

  /** Whether the owner has items waiting: a newcomer of theirs queues behind them. */
  hasWaiting(owner: string): boolean {
    return (this.owners.get(owner)?.waiting.length ?? 0) > 0;
  }

  /** Slots the owner holds now. */
  holding(owner: string): number {
    return this.owners.get(owner)?.holding ?? 0;
  }

  /** Whether an owner other than this one holds a slot or waits for one. */
  hasOthersThan(owner: string): boolean {
    // Owners holding and waiting for nothing are dropped (`forgetIfIdle`).
    return this.owners.size > (this.owners.has(owner) ? 1 : 0);
  }

  push(owner: string, item: T): void {
    this.shareOf(owner).waiting.push(item);
    this.count++;
  }

  /**
   * Takes the next item in fair order, its owner now holding one more slot; `mayTake` can
   * pass over owners that may not have one now.
   */
  take(mayTake: (owner: string) => boolean = () => true): { owner: string; item: T } | undefined {
    let next: [string, OwnerShare<T>] | undefined;
    for (const entry of this.owners) {
      const share = entry[1];
      if (share.waiting.length === 0 || !mayTake(entry[0])) continue;
      const best = next?.[1];
      if (
        !best ||
        share.holding < best.holding ||
        (share.holding === best.holding && share.servedAt < best.servedAt)
      ) {
        next = entry;
      }
    }
    if (!next) return undefined;
    const [owner, share] = next;
    const item = share.waiting.shift() as T;
    this.count--;
    this.hold(owner);
    return { owner, item };
  }

  /** Counts a slot the owner took without waiting in line. */
  hold(owner: string): void {
    const share = this.shareOf(owner);
    share.holding++;
    share.servedAt = ++this.served;
  }

  /** Gives back a slot the owner held. */
  release(owner: string): void {
    const share = this.owners.get(owner);
    if (!share) return;
    share.holding--;
    this.forgetIfIdle(owner, share);
  }

  /** Takes the first waiting item that matches out of the line; undefined when none does. */
  remove(matches: (item: T) => boolean): T | undefined {
    for (const [owner, share] of this.owners) {
      const index = share.waiting.findIndex(matches);
      if (index < 0) continue;
      const [item] = share.waiting.splice(index, 1);
      this.count--;
      this.forgetIfIdle(owner, share);
      return item;
    }
    return undefined;
  }

  private shareOf(owner: string): OwnerShare<T> {
    let share = this.owners.get(owner);
    if (!share) {
      // Never served (or not since it last went idle): first in line among equals.
      share = { waiting: [], holding: 0, servedAt: 0 };
      this.owners.set(owner, share);
    }
    return share;
  }

  /** Owners with nothing held or waiting are dropped: the map stays as small as the load. */
  private forgetIfIdle(owner: string, share: OwnerShare<T>): void {
    if (share.holding === 0 && share.waiting.length === 0 && this.owners.get(owner) === share) {
      this.owners.delete(owner);
    }
  }
}
