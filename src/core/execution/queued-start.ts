// Starting a queued execution: the one step of a run that may fail while the execution is
// still queued, and so must not lose it. A start the store refused (an outage) leaves the
// record queued and this runner's, where neither `takeQueued` nor the look for orphans
// finds it: the runner holds it and tries again. Kept apart from
// `ExecutionRunner` so that its run reads as steps.

import type { Store } from "../ports.js";
import type { LazyAbortController } from "./lazy-abort-controller.js";
import type { KeptExecution } from "./redacted-execution.js";

/** A queued execution's start the store refused (`cause`): it is still queued there, and this runner's. */
export class NotStarted extends Error {
  constructor(cause: unknown) {
    super("the store refused a queued execution's start", { cause });
  }
}

/**
 * Stores a queued execution running (`store.executions.start`): "ours" when it did,
 * "taken" when another runner took it or it ended meanwhile. A start the store refused
 * throws `NotStarted` (it stays queued), unless a cancel came meanwhile: "cancelled".
 */
export async function startQueued(
  store: Store,
  running: KeptExecution,
  controller: LazyAbortController,
): Promise<"ours" | "taken" | "cancelled"> {
  try {
    return (await store.executions.start(running)) ? "ours" : "taken";
  } catch (err) {
    if (controller.reason === "cancel") return "cancelled";
    throw new NotStarted(err);
  }
}

/** Queued executions whose start is tried again later, by id, each until its timer fires or it is taken out. */
export class StartRetries<T> {
  private readonly retries = new Map<string, { item: T; timer: NodeJS.Timeout }>();

  /** Calls `due` with `item` after `delayMs`, unless it is taken out first. */
  later(id: string, item: T, delayMs: number, due: (item: T) => void): void {
    const timer = setTimeout(() => {
      this.retries.delete(id);
      due(item);
    }, delayMs);
    // A retry never keeps the process alive on its own.
    timer.unref();
    this.retries.set(id, { item, timer });
  }

  /** Takes one out (its retry will not come); undefined when it is not waiting. */
  take(id: string): T | undefined {
    const retry = this.retries.get(id);
    if (!retry) return undefined;
    clearTimeout(retry.timer);
    this.retries.delete(id);
    return retry.item;
  }

  /** Whether one waits for its retry. */
  has(id: string): boolean {
    return this.retries.has(id);
  }

  /** Takes every one out. */
  takeAll(): T[] {
    return [...this.retries.keys()].flatMap((id) => this.take(id) ?? []);
  }

  get size(): number {
    return this.retries.size;
  }
}
