import type { Reclaim, ReleaseSlot } from "../fair-slots.js";

/**
 * An async execution's slot in the runner's queue (`SKILLPORT_ASYNC_CONCURRENCY`), and
 * what the execution does when the slot is asked back for another owner's execution that
 * has waited (the rule, and which slot, is `FairSlots`'):
 * - while its run waits for a worker thread, it gives the slot up and goes on waiting for
 *   the thread in the threads' own fair turn. It loses nothing, and its record does not
 *   change: it was `running` with its timeout counting, as every run waiting for a thread
 *   is (its record says if it never started). On a thread it then holds no slot: the
 *   threads bound those runs, so no more than one run per thread runs beyond the slots.
 * - once its skill runs, it is stopped, as a timeout stops it, and ends preempted
 *   (`execution_interrupted`, see `preemptedMessage`).
 * - asked before either (while its record is marked running), it does what the first of
 *   them calls for.
 *
 * The run tells it each step (`waitingForThread`, `started`); the queue releases the slot
 * when the run ends, if it was not given up before.
 */
export class AsyncSlot {
  private state: "starting" | "waitingForThread" | "running" | "givenUp" = "starting";
  private asked: Reclaim | undefined;
  private releaseSlot: ReleaseSlot = () => {};
  private stopRun: ((reclaim: Reclaim) => void) | undefined;

  /** The slot the queue gave the execution. */
  granted(release: ReleaseSlot): void {
    this.releaseSlot = release;
  }

  /** How its run is stopped when it must be (set as the run begins, before any reclaim can come). */
  stopWith(stop: (reclaim: Reclaim) => void): void {
    this.stopRun = stop;
  }

  /** Whether it could give the slot up now losing nothing (`FairSlots` asks such slots back first). */
  get idle(): boolean {
    return this.state === "waitingForThread";
  }

  /** The slot is wanted back for another owner's execution. */
  reclaim(reclaim: Reclaim): void {
    this.asked = reclaim;
    this.answer();
  }

  /** The run goes to wait for a worker thread (it may get one at once). */
  waitingForThread(): void {
    if (this.state === "starting") this.state = "waitingForThread";
    this.answer();
  }

  /** The skill began. */
  started(): void {
    if (this.state === "givenUp") return;
    this.state = "running";
    this.answer();
  }

  private answer(): void {
    const asked = this.asked;
    if (!asked) return;
    if (this.state === "waitingForThread") {
      this.state = "givenUp";
      this.asked = undefined;
      this.releaseSlot();
    } else if (this.state === "running") {
      this.asked = undefined;
      this.stopRun?.(asked);
    }
  }
}
