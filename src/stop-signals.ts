/**
 * The signals that stop `serve` and `mcp` gracefully (running executions finish until
 * SKILLPORT_SHUTDOWN_TIMEOUT_MS, then end `execution_interrupted`; the store is closed):
 * SIGTERM (supervisors, `docker stop`, Kubernetes), SIGINT (Ctrl-C) and SIGHUP (the
 * terminal closed under `npm start` or a shell, or a supervisor's stop or reload). Node's
 * default for SIGHUP killed the process at once, leaving its runs `running` in the store
 * until the next start. The skill host ignores them all (skill-host.ts): the server's
 * stop, not the signal that reached its process group, decides when runs end.
 */
export const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const satisfies readonly NodeJS.Signals[];

/** Calls `handler` with each stop signal the process receives, instead of dying of it. */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void): void {
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
}
