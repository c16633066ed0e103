import type { ExecutionStore } from "../ports.js";
import type { StoredExecution } from "./record.js";
import type { KeptExecution } from "./redacted-execution.js";

/**
 * The one rule for ending an execution, whoever ends it (its run, a cancel recorded by
 * another process, a retry of an outcome the store refused): a terminal record never
 * changes, so the save of `ended` loses to one stored first (a cancel recorded elsewhere
 * while the run went on, or the run's outcome while a cancel was on its way), and the
 * record stored is the answer. Throws what the store throws; what a caller does then (try
 * again, or answer an outage) is the caller's.
 */
export async function saveOutcome(
  executions: ExecutionStore,
  ended: KeptExecution,
): Promise<StoredExecution> {
  if (await executions.save(ended)) return ended;
  return (await executions.get(ended.record.id)) ?? ended;
}
