/**
 * Runs an async task at most once at a time, and answers every call with a run that
 * started after the call: a call while no run is under way starts one at once; calls
 * while one is under way share the next, which starts when it settles. Callers thus
 * never get a result older than their call (a run already under way may have read or
 * taken its input before it), and a burst of calls costs two runs, not one each.
 */
export class CoalescedRuns<T> {
  private running: Promise<T> | undefined;
  private next: Promise<T> | undefined;

  /** `onIdle` is called when a run settles and no other is waiting. */
  constructor(
    private readonly task: () => Promise<T>,
    private readonly onIdle?: () => void,
  ) {}

  run(): Promise<T> {
    if (this.next) return this.next;
    const running = this.running;
    if (!running) return this.start();
    const next = running.then(ignore, ignore).then(() => {
      this.next = undefined;
      return this.start();
    });
    this.next = next;
    return next;
  }

  /** Resolves once no run is under way or waiting (it never rejects). */
  async settled(): Promise<void> {
    while (this.running || this.next) await (this.next ?? this.running)?.then(ignore, ignore);
  }

  private start(): Promise<T> {
    // Started within this call: the task's read or write begins no earlier than its callers.
    const running = new Promise<T>((resolve) => resolve(this.task()));
    this.running = running;
    const settle = () => {
      this.running = undefined;
      if (!this.next) this.onIdle?.();
    };
    running.then(settle, settle);
    return running;
  }
}

function ignore(): void {}
