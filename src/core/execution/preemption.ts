import type { Reclaim } from "../fair-slots.js";

/**
 * A run stopped to free its slot for another owner's run (see `FairSlots`), told to its
 * controller (`LazyAbortController.preempt`). Nothing was wrong with the run, so it ends
 * `execution_interrupted`, the code of a run the service cut off, not `execution_failed`,
 * the skill's own failure: a client that sorts failures by code retries it.
 */
export interface Preemption extends Reclaim {
  /** What the reclaim took from the run: its worker thread, or its async execution slot. */
  slot: "thread" | "async";
}

/** The words of a preempted run: why, and what to do. */
export function preemptedMessage({ heldMs, waitedMs, slot }: Preemption): string {
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
