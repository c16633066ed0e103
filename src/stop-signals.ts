import { setImmediate } from "node:timers/promises";

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

/** The stop signals a starting command holds (`holdStopSignals`), for its stop to take over. */
export interface HeldStopSignals {
  /**
   * Hands the signal held so far, if any, then every later one, to `handler`, once every
   * signal the process has received is seen (resolves then).
   */
  handleWith(handler: (signal: NodeJS.Signals) => void): Promise<void>;
}

interface StartLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  flush(): void;
}

/**
 * Holds the stop signals that arrive while a command starts (its store opening, migrating
 * or waiting for PostgreSQL or Redis, its core starting, its port binding), until its stop
 * can run (`handleWith`): Node's default action killed the process there, its store not
 * closed and no line saying why. The first is logged and handed over once the start has
 * ended, to stop as any signal stops a serving process (exit 0 when all went well). A
 * second exits at once (code 130, as a third does during a stop): nothing this process
 * took on has started yet, and the start may be waiting out a deadline of minutes (a
 * PostgreSQL migration waits for another replica's). A start that opens nothing of its own
 * (`opensStore: false`: `mcp --remote`, whose server holds the runs) has nothing to close,
 * and exits at once (code 0), rather than wait for its server's first answers.
 */
export function holdStopSignals(logger: StartLogger, { opensStore = true } = {}): HeldStopSignals {
  let held: NodeJS.Signals | undefined;
  let handler: ((signal: NodeJS.Signals) => void) | undefined;
  onStopSignals((signal) => {
    if (handler !== undefined) {
      handler(signal);
    } else if (!opensStore) {
      logger.info({ signal }, "stop signal while starting: nothing to close; exiting");
      logger.flush();
      process.exit(0);
    } else if (held === undefined) {
      held = signal;
      logger.info({ signal }, "stop signal while starting: stopping once started");
    } else {
      logger.error({ signal }, "second signal while starting: exiting at once");
      logger.flush();
      process.exit(130);
    }
  });
  return {
    async handleWith(stop) {
      // A signal that came while the start held the thread (SQLite waiting out another
      // connection's lock, for up to 5 s; a migration) reaches JavaScript only when the event
      // loop next polls, which the rest of the start may not have let it do: it would then be
      // taken for one sent to the started process. The second of two turns of the loop comes
      // after a poll, whichever phase the first began in.
      await setImmediate();
      await setImmediate();
      handler = stop;
      if (held !== undefined) stop(held);
    },
  };
}
