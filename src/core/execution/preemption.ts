import type { Reclaim } from "../fair-slots.js";

/**
 * Thrown by an executor for a run it stopped to free its worker thread for another
 * owner's run (see `FairSlots`). Nothing was wrong with the run, so it ends
 * `execution_interrupted`, the code of a run the service cut off, not `execution_failed`,
 * the skill's own failure: a client that sorts failures by code retries it. Its message is
 * shown.
 */
export class PreemptedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PreemptedError";
  }
}

/** What a reclaim took from a run: its worker thread, or its async execution slot. */
export type PreemptedSlot = "thread" | "async";

/** The words of a run stopped to free its slot for another owner's (`FairSlots`): why, and what to do. */
export function preemptedMessage({ heldMs, waitedMs }: Reclaim, slot: PreemptedSlot): string {
  const what =
    slot === "thread"
      ? `after ${seconds(heldMs)} on a worker thread: it was stopped to free the thread for another owner's run ` +
        `that had waited ${seconds(waitedMs)} for one, as no owner may hold more than an even share of the ` +
        "worker threads while others wait"
      : `after ${seconds(heldMs)}: it was stopped to free its slot for another owner's asynchronous execution ` +
        `that had waited ${seconds(waitedMs)} for one, as no owner may hold more than an even share of the ` +
        "slots for asynchronous executions while others wait";
  return (
    `The execution was preempted ${what}. Nothing was wrong with it: run it again ` +
    "(later, or with fewer long runs of yours at once)."
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
