// What other processes did to the executions this one holds: a cancel recorded in the
// store by another process (which, without a channel to this one, only records it), or a
// waiting execution another runner took over. This process learns of it only by reading
// the store, on its own schedule; kept apart from `ExecutionRunner` so that the runner
// reads as the life of a run, and these looks as what they make up for.

import type { Logger } from "../logger.js";
import type { Store } from "../ports.js";
import type { LazyAbortController } from "./lazy-abort-controller.js";
import { isTerminal } from "./record.js";

/** How often runs are checked for a cancel another process recorded (stores without signals). */
const ENDED_ELSEWHERE_POLL_MS = 1_000;
/** The same where signals bring cancels: only for the ones lost on the way. */
const ENDED_ELSEWHERE_SAFETY_NET_MS = 5_000;

export interface EndedElsewhereOptions {
  runnerId: string;
  store: Store;
  logger: Logger;
}

/** The executions this runner holds, as these looks need them. */
export interface HeldExecutions {
  /** The runs going on here: their ids, and the controllers that stop them. */
  running(): Iterable<[string, LazyAbortController]>;
  /** The ids of the async executions waiting here for a slot. */
  waitingIds(): string[];
  /** Drops a waiting execution (and gives back its key's concurrency hold). */
  letGo(id: string): void;
}

/** The looks at the store for what other processes did (see the file's header). */
export class EndedElsewhere {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: EndedElsewhereOptions,
    private readonly held: HeldExecutions,
  ) {}

  /** Starts looking for the runs of this process another one ended (a cancel). */
  start(): void {
    const { store, logger } = this.options;
    // Without signals this is how a cancel recorded by another process reaches its run.
    // With them, a cancel signal lost (the listening connection dead and not yet noticed,
    // or reconnecting) would leave the run going after the API answered `cancelled`: the
    // same look, less often, bounds that (README: "A cancel stops the run wherever it runs").
    const pollMs = store.signals ? ENDED_ELSEWHERE_SAFETY_NET_MS : ENDED_ELSEWHERE_POLL_MS;
    let checking = false;
    this.timer = setInterval(() => {
      // One look at a time: during an outage each read waits for the store's deadline.
      if (checking) return;
      checking = true;
      this.stopRunsEndedElsewhere()
        .catch((err: unknown) => {
          // The store out of reach is logged where requests meet it; this look only waits.
          const log = store.isOutage(err) ? logger.warn : logger.error;
          log.call(logger, { err }, "could not check for runs ended by another process");
        })
        .finally(() => {
          checking = false;
        });
    }, pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * Lets go of the waiting executions another process cancelled or took over (a runner
   * takes those left waiting over a beat): they would hold their key's concurrency slots,
   * and the process's pending count, here until a slot of this runner freed.
   */
  async dropWaiting(): Promise<void> {
    for (const id of this.held.waitingIds()) {
      if (!(await this.stillOurs(id))) this.held.letGo(id);
    }
  }

  /**
   * Whether the store still has the execution unfinished and this runner's (queued, or
   * running for one taken from the store's waiting ones).
   */
  async stillOurs(id: string): Promise<boolean> {
    const stored = await this.options.store.executions.get(id);
    return (
      stored !== undefined && !isTerminal(stored.record.status) && stored.runnerId === this.options.runnerId
    );
  }

  /**
   * Without a channel between processes (the SQLite store), a cancel made by another
   * process on the same data directory is only recorded there. The runs this process holds
   * whose record ended that way are stopped here, as a cancel sent over a channel would
   * (their own outcome then gives way to the stored one: see `saveOutcome`).
   */
  private async stopRunsEndedElsewhere(): Promise<void> {
    for (const [id, controller] of [...this.held.running()]) {
      const stored = await this.options.store.executions.get(id);
      if (stored && isTerminal(stored.record.status)) controller.abort("cancel");
    }
  }
}
