import { FairLine } from "../fair-line.js";

interface Job<T> {
  id: string;
  item: T;
}

/**
 * Runs queued jobs with at most `concurrency` at once, taken in a `FairLine`: fair between
 * owners, and in arrival order for each. Async executions go through it so a burst cannot
 * start unbounded work in one process, nor make other owners' executions wait for all of it.
 */
export class WorkQueue<T> {
  private readonly line = new FairLine<Job<T>>();
  private running = 0;
  private starting = true;

  constructor(
    private readonly concurrency: number,
    private readonly work: (item: T) => Promise<void>,
  ) {}

  push(id: string, owner: string, item: T): void {
    this.line.push(owner, { id, item });
    this.pump();
  }

  /** Takes a job out before it started; undefined when it is not waiting (running or unknown). */
  remove(id: string): T | undefined {
    return this.line.remove((job) => job.id === id)?.item;
  }

  /** Starts no more jobs (shutting down): running ones go on, waiting ones stay waiting. */
  stopStarting(): void {
    this.starting = false;
  }

  /** Jobs that could start at once (free slots not claimed by waiting jobs). */
  get room(): number {
    return Math.max(0, this.concurrency - this.running - this.line.length);
  }

  /** The ids of the jobs waiting, in no particular order. */
  waitingIds(): string[] {
    return this.line.items().map((job) => job.id);
  }

  get pending(): number {
    return this.line.length;
  }

  get active(): number {
    return this.running;
  }

  private pump(): void {
    while (this.starting && this.running < this.concurrency) {
      const next = this.line.take();
      if (!next) return;
      this.running++;
      // `work` reports its own failures; a rejection here only frees the slot.
      const settle = () => {
        this.running--;
        this.line.release(next.owner);
        this.pump();
      };
      this.work(next.item.item).then(settle, settle);
    }
  }
}
