/**
 * Runs queued jobs with at most `concurrency` at once, in arrival order. Async
 * executions go through it so a burst cannot start unbounded work in one process.
 */
export class WorkQueue<T> {
  private readonly waiting: { id: string; item: T }[] = [];
  private running = 0;
  private starting = true;

  constructor(
    private readonly concurrency: number,
    private readonly work: (item: T) => Promise<void>,
  ) {}

  push(id: string, item: T): void {
    this.waiting.push({ id, item });
    this.pump();
  }

  /** Takes a job out before it started; undefined when it is not waiting (running or unknown). */
  remove(id: string): T | undefined {
    const index = this.waiting.findIndex((job) => job.id === id);
    if (index < 0) return undefined;
    return this.waiting.splice(index, 1)[0]?.item;
  }

  /** Starts no more jobs (shutting down): running ones go on, waiting ones stay waiting. */
  stopStarting(): void {
    this.starting = false;
  }

  /** Jobs that could start at once (free slots not claimed by waiting jobs). */
  get room(): number {
    return Math.max(0, this.concurrency - this.running - this.waiting.length);
  }

  get pending(): number {
    return this.waiting.length;
  }

  get active(): number {
    return this.running;
  }

  private pump(): void {
    while (this.starting && this.running < this.concurrency) {
      const job = this.waiting.shift();
      if (!job) return;
      this.running++;
      // `work` reports its own failures; a rejection here only frees the slot.
      const settle = () => {
        this.running--;
        this.pump();
      };
      this.work(job.item).then(settle, settle);
    }
  }
}
