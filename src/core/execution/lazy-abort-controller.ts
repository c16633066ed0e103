import type { Preemption } from "./preemption.js";
import type { AbortReason } from "./run-skill.js";

/**
 * An execution's abort controller whose `AbortSignal` is made only when someone asks for
 * it: a skill reading `ctx.signal`, or the worker pool relaying it to a thread. Most calls
 * of light skills never do, and on Node 20 an `AbortController` with one listener costs
 * about 5 µs, more than such a skill's whole run. The core itself waits on `onAbort`.
 */
export class LazyAbortController {
  private abortReason: AbortReason | undefined;
  private preemptedBy: Preemption | undefined;
  private controller: AbortController | undefined;
  private listeners: ((reason: AbortReason) => void)[] = [];

  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** Why it was aborted (the first reason wins), or undefined while it was not. */
  get reason(): AbortReason | undefined {
    return this.abortReason;
  }

  /** What the run was preempted for, when its reason is `reclaimed` (see `preempt`). */
  get preemption(): Preemption | undefined {
    return this.preemptedBy;
  }

  /** A standard signal that fires with the same reason; already aborted if this is. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: Exclude<AbortReason, "reclaimed">): void {
    this.end(reason);
  }

  /** The one way a run is preempted, whichever slot was taken: aborted `reclaimed`, as a timeout aborts it. */
  preempt(preemption: Preemption): void {
    if (this.abortReason !== undefined) return;
    this.preemptedBy = preemption;
    this.end("reclaimed");
  }

  private end(reason: AbortReason): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener(reason);
  }

  /**
   * Calls `listener` once when this is aborted (at once if it already is); returns what
   * removes it.
   */
  onAbort(listener: (reason: AbortReason) => void): () => void {
    if (this.abortReason !== undefined) {
      listener(this.abortReason);
      return () => {};
    }
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((other) => other !== listener);
    };
  }
}
