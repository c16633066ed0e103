export interface CircuitBreakerOptions {
  /** Resolves when the dependency answers again; rejects (or never settles in time) while it does not. */
  probe: () => Promise<unknown>;
  /** Called once a probe succeeds, with how long the breaker was open. */
  onClosed: (openForMs: number) => void;
  /** Time between the end of one probe and the start of the next (ms). */
  probeEveryMs: number;
}

/**
 * Whether calls to a remote dependency (Redis) should be made at all. Closed, they are.
 * Once a call fails (an error, or no answer within its deadline) the breaker opens: callers
 * take their fallback at once instead of each waiting for the same deadline, and a probe,
 * one at a time, asks every `probeEveryMs` whether the dependency answers again; the first
 * that does closes the breaker.
 *
 * The probe runs in the background rather than as a caller's request, so no request ever
 * waits on a dependency already known to be out, not even one per probe interval.
 */
export class CircuitBreaker {
  private openedAtMs: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: CircuitBreakerOptions) {}

  get isOpen(): boolean {
    return this.openedAtMs !== undefined;
  }

  /** How long the breaker has been open (ms); 0 while closed. */
  get openForMs(): number {
    return this.openedAtMs === undefined ? 0 : Date.now() - this.openedAtMs;
  }

  /** Opens the breaker after a failed call; true when this call opened it (false if already open). */
  trip(): boolean {
    if (this.openedAtMs !== undefined || this.stopped) return false;
    this.openedAtMs = Date.now();
    this.scheduleProbe();
    return true;
  }

  /** Stops probing for good (the dependency is being closed). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private scheduleProbe(): void {
    // Unref'd: a pending probe never keeps a process alive.
    this.timer = setTimeout(() => void this.runProbe(), this.options.probeEveryMs);
    this.timer.unref();
  }

  private async runProbe(): Promise<void> {
    let answered = true;
    try {
      await this.options.probe();
    } catch {
      answered = false;
    }
    if (this.stopped) return;
    if (!answered) {
      this.scheduleProbe();
      return;
    }
    const openForMs = this.openForMs;
    this.openedAtMs = undefined;
    this.options.onClosed(openForMs);
  }
}
