/** The longest delay one Node timer takes (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A signal that aborts when `timeoutMs` has passed (never, for `Infinity`), or with the caller's reason when the
 * caller's signal aborts first. Its timer is a plain `setTimeout`, so it fires on time:
 * undici's own `headersTimeout`/`bodyTimeout` tick on coarse timers (about half a second)
 * and ended a 100 ms attempt after a whole second.
 *
 * The caller's abort is forwarded by a listener removed in `dispose()`, not joined with
 * `AbortSignal.any`: the caller's signal may outlive many deadlines (an application's
 * shutdown signal), and would keep every deadline's signal alive as long as itself.
 *
 * A deadline past what one timer holds is reached by timers one after another: Node ends
 * a longer `setTimeout` after 1 ms instead (with a warning), so a call given 30 days, or
 * a long poll added to the client's largest `timeoutMs`, failed at once.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private readonly forwardAbort = () => this.controller.abort(this.callerSignal?.reason);

  constructor(
    timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    const expire = () => {
      this.timedOut = true;
      this.controller.abort(new DOMException(`No answer within ${timeoutMs} ms.`, "TimeoutError"));
    };
    const startClock = (leftMs: number) => {
      if (leftMs === Number.POSITIVE_INFINITY) return;
      this.timer =
        leftMs > MAX_TIMER_MS
          ? setTimeout(() => startClock(leftMs - MAX_TIMER_MS), MAX_TIMER_MS)
          : setTimeout(expire, leftMs);
    };
    startClock(timeoutMs);
    if (callerSignal?.aborted) this.forwardAbort();
    else callerSignal?.addEventListener("abort", this.forwardAbort, { once: true });
  }

  /** Aborts at the deadline or with the caller's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the time ran out (and the caller had not aborted first). */
  get expired(): boolean {
    return this.timedOut && !this.callerSignal?.aborted;
  }

  /** Stops the clock but keeps forwarding the caller's abort (to a stream still being read). */
  stopClock(): void {
    clearTimeout(this.timer);
  }

  /** Stops the clock and lets go of the caller's signal. */
  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener("abort", this.forwardAbort);
  }
}
