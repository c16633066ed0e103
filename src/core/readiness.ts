import type { ExecutorLoad } from "./execution/skill-executor.js";

/**
 * The load this process carries now, read from memory: never asking the store or Redis, so
 * that neither a probe nor a scrape waits on them. What `/metrics` exports and readiness is
 * judged on (`Skillport.load`).
 */
export interface ProcessLoad {
  /** Executions running and queued here, and the unfinished ones held against the process's capacity. */
  executions: { running: number; queued: number; held: number; capacity: number };
  /** Worker threads running isolated skills, and skill runs waiting for one. */
  workers: ExecutorLoad;
  /** The process holds its capacity: every new execution is refused (503) until one ends. */
  saturated: boolean;
  /**
   * Whether the store's last calls served, as the log says (`OutageLog`): down from a call
   * that failed as an outage (a request answered 503, a heartbeat) until a heartbeat lands.
   */
  store: "ok" | "down";
  /**
   * Where limits are counted in Redis, whether it answers, from the limiter's state (its
   * last command); absent where they are not.
   */
  redis?: "ok" | "down";
}

/** Whether the process can serve (`ready`), and if not, why. */
export type ReadinessStatus = "ready" | "saturated" | "unavailable";

export interface Readiness {
  status: ReadinessStatus;
  store: "ok" | "down";
  load: ProcessLoad;
}

/**
 * The readiness rule: a process is ready when its store can serve, it is not stopping
 * (`Skillport.stop`: a SIGTERM), and it is not saturated. A saturated process says so
 * whatever else is wrong; any other reason is `unavailable`. Redis down leaves it ready,
 * whatever `SKILLPORT_REDIS_DOWN` says: every replica shares that Redis, so taking them
 * out of the load balancer would only trade the policy's answers (limits per replica, or
 * the contract's 503 with Retry-After) for no answer at all.
 */
export function readinessOf(storeOk: boolean, stopping: boolean, load: ProcessLoad): Readiness {
  const ready = storeOk && !stopping && !load.saturated;
  return {
    status: ready ? "ready" : load.saturated ? "saturated" : "unavailable",
    store: storeOk ? "ok" : "down",
    load,
  };
}
