// Signals between the processes sharing a store: status, progress and cancel of executions.

import type { ExecutionStatus } from "../execution/record.js";
import type { ProgressUpdate } from "../skills/skill.js";

/**
 * What processes sharing a store tell each other about executions. Kept small (an id, a
 * status): a process that wants the record reads it from the store.
 */
export type StoreSignal =
  | { type: "status"; executionId: string; status: ExecutionStatus; from: string }
  | { type: "progress"; executionId: string; update: ProgressUpdate; from: string }
  /** Asks whichever process holds the execution to cancel it. */
  | { type: "cancel"; executionId: string; from: string };

/**
 * A broadcast channel between every process sharing the store (PostgreSQL LISTEN/NOTIFY).
 * Delivery is prompt but not guaranteed (a dropped connection loses signals), so
 * listeners still re-read the store now and then. Every process receives its own signals too.
 */
export interface SignalChannel {
  publish(signal: StoreSignal): Promise<void>;
  subscribe(listener: (signal: StoreSignal) => void): () => void;
}
