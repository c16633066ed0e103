import { FairSlots, type Reclaim, type ReleaseSlot } from "../fair-slots.js";

export interface WorkQueueOptions<T> {
  /**
   * Asks a running job to give its slot back for another owner's job that has waited (the
   * rule is `FairSlots`'): it should release the slot it was given, or end soon. Without
   * it no slot is taken back.
   */
  reclaim?: (item: T, reclaim: Reclaim) => void;
  /** Whether a running job could give its slot up now losing nothing (asked back first). */
  idle?: (item: T) => boolean;
  /** How long another owner's job waits before a slot is taken back for it (default 5 s). */
  reclaimAfterMs?: number;
}

interface Waiting<T> {
  item: T;
  /** Takes it out of the line; false once it started. */
  withdraw: () => boolean;
}

/**
 * Runs queued jobs with at most `concurrency` holding a slot at once, the slots shared
 * between owners by `FairSlots`: taken fairly, in arrival order for each owner, and taken
 * back from an owner holding more than an even share once another owner's job has waited.
 * Async executions go through it so a burst cannot start unbounded work in one process,
 * nor make other owners' executions wait for all of it.
 */
export class WorkQueue<T> {
  private readonly slots: FairSlots;
  private readonly waiting = new Map<string, Waiting<T>>();

  /**
   * `work` runs a job holding the slot `release` gives back: when its promise settles, or
   * sooner if it calls `release` itself.
   */
  constructor(
    concurrency: number,
    private readonly work: (item: T, release: ReleaseSlot) => Promise<void>,
    private readonly options: WorkQueueOptions<T> = {},
  ) {
    this.slots = new FairSlots(concurrency, { reclaimAfterMs: options.reclaimAfterMs });
  }

  push(id: string, owner: string, item: T): void {
    const { reclaim, idle } = this.options;
    const waiting: Waiting<T> = { item, withdraw: () => false };
    this.waiting.set(id, waiting);
    waiting.withdraw = this.slots.request(owner, (release) => this.start(id, waiting, release), {
      onReclaim: reclaim && ((why) => reclaim(item, why)),
      idle: idle && (() => idle(item)),
    });
  }

  /** Takes a job out before it started; undefined when it is not waiting (running or unknown). */
  remove(id: string): T | undefined {
    const waiting = this.waiting.get(id);
    if (!waiting?.withdraw()) return undefined;
    this.waiting.delete(id);
    return waiting.item;
  }

  /** Whether a job waits to start. */
  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Starts no more jobs (shutting down): running ones go on, waiting ones stay waiting. */
  stopStarting(): void {
    this.slots.stopGranting();
  }

  /** Jobs that could start at once (free slots not claimed by waiting jobs). */
  get room(): number {
    return Math.max(0, this.slots.free - this.slots.waiting);
  }

  /** The ids of the jobs waiting, in no particular order. */
  waitingIds(): string[] {
    return [...this.waiting.keys()];
  }

  get pending(): number {
    return this.waiting.size;
  }

  private start(id: string, waiting: Waiting<T>, release: ReleaseSlot): void {
    if (this.waiting.get(id) === waiting) this.waiting.delete(id);
    // `work` reports its own failures; a rejection here only frees the slot.
    this.work(waiting.item, release).then(release, release);
  }
}
