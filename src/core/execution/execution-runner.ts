import type { Clock } from "../clock.js";
import { shuttingDownError } from "../errors.js";
import { newId } from "../ids.js";
import type { ConcurrencyGate, ReleaseHold } from "../limits/concurrency-gate.js";
import { type LogEntry, type Logger, lazyChildLogger, maskingLogger, teeLogger } from "../logger.js";
import type { StoreWatch } from "../outage-log.js";
import type { ClaimedOrphan, Store } from "../ports.js";
import type { SkillRegistry } from "../skills/registry.js";
import type { ProgressUpdate } from "../skills/skill.js";
import { AsyncQueue } from "./async-queue.js";
import type { AsyncSlot } from "./async-slot.js";
import { EndedElsewhere } from "./ended-elsewhere.js";
import { type ExecutionEvents, progressEvent } from "./events.js";
import { LazyAbortController } from "./lazy-abort-controller.js";
import { markRunning, markWaitingForThread, runningFor } from "./new-record.js";
import { startQueued } from "./queued-start.js";
import type { StoredExecution } from "./record.js";
import { type KeptExecution, withParamsKept } from "./redacted-execution.js";
import { cancelledBeforeStart, failedOutcome, type RunOutcome, runSkill } from "./run-skill.js";
import { RunnerPresence } from "./runner-presence.js";
import { RunningRecordSaves } from "./running-record-saves.js";
import { OutcomeRecorder } from "./save-outcome.js";
import { skillContext } from "./skill-context.js";
import type { SkillExecutor } from "./skill-executor.js";
import { skillProgress } from "./skill-progress.js";

/** How long the stop tries refused outcomes again at least, even past its deadline. */
const LAST_OUTCOME_TRIES_MS = 1_000;

export interface ExecutionRunnerOptions {
  registry: SkillRegistry;
  store: Store;
  clock: Clock;
  logger: Logger;
  events: ExecutionEvents;
  /** Async executions running at once in this process. */
  asyncConcurrency: number;
  /** Per-skill configuration, by skill id (SKILLPORT_SKILL_CONFIG). */
  skillConfig: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * How often this process proves it is alive and looks for queued work other runners
   * could not start yet; a runner silent for six beats is gone (`RunnerPresence`).
   */
  heartbeatMs?: number;
  /** Where skills run (isolated in workers, or on this thread). */
  executor: SkillExecutor;
  /** Holds of unfinished executions; queued work taken over from a dead process holds one too. */
  concurrency: ConcurrencyGate;
  /**
   * How long another owner's async execution waits for a slot before one is taken back
   * for it from an owner holding more than an even share (see `AsyncSlot`; default 5 s).
   */
  asyncReclaimAfterMs?: number;
  /** Told whether each heartbeat reached the store (the end of an outage is seen by it). */
  storeWatch?: StoreWatch;
}

interface InFlight {
  controller: LazyAbortController;
  finished: Promise<StoredExecution>;
}

/** What the caller that started an execution hears of it, and how it gives up on it. */
export interface RunHooks {
  /** Progress of the execution as it runs (MCP turns it into notifications). */
  onProgress?: (update: ProgressUpdate) => void;
  /** Fires when the caller cancels (an MCP `notifications/cancelled`): the run ends `cancelled`. */
  signal?: AbortSignal;
  /** The skill's log lines as it runs (MCP sends them as `notifications/message`). */
  onLog?: (entry: LogEntry) => void;
}

/** How `runNow` runs a sync execution. */
export interface RunNowOptions {
  /** Its running record as the caller stored it already; without it, it is saved alongside the run. */
  stored?: KeptExecution;
}

/**
 * Where an execution stands when this runner begins it: a sync one just created (running,
 * not stored yet), a queued one this runner holds, or one stored running already (by
 * `takeQueued`, or by a caller that must know it is stored before the skill starts), its
 * params stored masked (`withParamsKept`). The execution given holds them whole in each case.
 */
type Begin = "new" | "queued" | "stored";

/**
 * Runs executions in this process: sync ones at once, async ones through a bounded
 * queue. It writes each record's transitions (queued → running → terminal) and owns the
 * abort controllers that timeouts, cancellation and shutdown fire. Its presence among the
 * processes on the store (heartbeat, takeovers) is `RunnerPresence`'s; its looks for what
 * other processes did to its executions, `EndedElsewhere`'s.
 *
 * The queue is shared by every process on the store: an async record is stored `queued`
 * and held by the runner that accepted it, which starts it when a slot is free; a runner
 * with free slots takes (`takeQueued`) what others have left waiting for over a beat, and
 * a runner starts a queued execution only through `store.executions.start`, so that each
 * runs once whoever takes it.
 */
export class ExecutionRunner {
  readonly runnerId = newId("runner");
  private readonly inFlight = new Map<string, InFlight>();
  private readonly queue: AsyncQueue;
  private readonly outcomes: OutcomeRecorder;
  private readonly presence: RunnerPresence;
  private readonly endedElsewhere: EndedElsewhere;
  private readonly heartbeatMs: number;
  private accepting = true;
  /** Set by `interrupt`: the stop waits no longer for running executions. */
  private interrupted = false;
  /** Ends the stop's wait for running executions (once the stop has begun). */
  private endStopWait: (() => void) | undefined;

  constructor(private readonly options: ExecutionRunnerOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 5_000;
    this.outcomes = new OutcomeRecorder(options);
    const { runnerId, heartbeatMs } = this;
    this.presence = new RunnerPresence({ ...options, runnerId, heartbeatMs });
    this.endedElsewhere = new EndedElsewhere(
      { ...options, runnerId },
      {
        running: () => [...this.inFlight].map(([id, flight]) => [id, flight.controller]),
        waitingIds: () => this.queue.waitingIds(),
        letGo: (id) => this.queue.letGo(id),
      },
    );
    this.queue = new AsyncQueue({
      concurrency: options.asyncConcurrency,
      reclaimAfterMs: options.asyncReclaimAfterMs,
      startRetryMs: heartbeatMs,
      store: options.store,
      logger: options.logger,
      run: ({ execution, hooks, begin, slot }) => this.run(execution, hooks, begin, slot),
    });
  }

  /** Registers this process and takes over what dead ones left; then keeps doing so periodically. */
  async start(): Promise<void> {
    const { concurrency } = this.options;
    await this.presence.start({
      takeOver: (orphan, cutOffAtMs) => this.takeOver(orphan, cutOffAtMs),
      beforeTaking: () => this.endedElsewhere.dropWaiting(),
      room: () => (this.accepting ? this.queue.room : 0),
      runTaken: (execution) => this.queue.push(execution, "stored", concurrency.track(execution.keyId)),
    });
    this.endedElsewhere.start();
  }

  /** Runs a sync execution (its params whole) to its end; resolves with the committed terminal record. */
  runNow(
    execution: StoredExecution,
    hooks: RunHooks = {},
    { stored }: RunNowOptions = {},
  ): Promise<StoredExecution> {
    this.assertAccepting();
    return this.run(execution, hooks, stored ? "stored" : "new", undefined, stored);
  }

  /**
   * Queues an async execution whose `queued` record is already stored; `release` gives
   * back its concurrency hold when it ends. Once shutdown has begun it is not refused: its
   * stored record was promised a run, so it stays queued in the store, as the executions
   * waiting here do, for the next process (or another one on the same store) to run.
   */
  enqueue(execution: StoredExecution, hooks: RunHooks, release: ReleaseHold): void {
    if (!this.accepting) {
      release();
      return;
    }
    this.queue.push(execution, "queued", release, hooks);
  }

  /** An execution of a runner judged gone: a queued one runs here (or later), a running one was cut off mid-run. */
  private async takeOver(orphan: ClaimedOrphan, cutOffAtMs: number): Promise<void> {
    if (orphan.record.status === "queued") {
      // Claimed as this process stops (a look under way): it stays queued in the store, now
      // this runner's, and the next process (or a peer, once this one retired) runs it, as
      // it does the executions waiting here.
      if (this.accepting) this.queue.push(orphan, "queued", this.options.concurrency.track(orphan.keyId));
      return;
    }
    await this.outcomes.record(
      // Masked as a record keeps them: an earlier version stored running records' params whole.
      withParamsKept(orphan, this.options.registry),
      failedOutcome(
        "execution_interrupted",
        // True of a run cut off midway and of one that ended but whose outcome the store
        // refused until its process stopped (`UnsavedOutcomes`, which logged that outcome).
        "The process running the execution stopped before its outcome was recorded.",
        runningFor(orphan, cutOffAtMs),
      ),
      "running",
      cutOffAtMs,
    );
  }

  /**
   * Cancels an execution this process holds and resolves with its terminal record, or
   * returns undefined when this process does not hold it. Rejects with what the store
   * throws when it cannot tell whether a waiting one is still this process's: it then
   * waits on, as if no cancel had come.
   */
  async cancelLocal(id: string): Promise<StoredExecution | undefined> {
    if (this.queue.holds(id)) {
      // Another process may have taken it meanwhile (or ended it): this copy, still queued,
      // must not be stored over its record. The caller then cancels it as another's. Read
      // before it leaves the queue: a read the store refuses (an outage) leaves it waiting
      // here with its hold, as a refused start does (`startQueued`), and the caller, told
      // of the outage, repeats the cancel. Taken out first, it was never run, recorded or
      // tried again: queued in the store, and this live runner's, until the process died.
      const ours = await this.endedElsewhere.stillOurs(id);
      // Unless it started meanwhile: then it is stopped as a run is, below.
      const waiting = this.queue.take(id);
      if (waiting) {
        waiting.release();
        if (!ours) return undefined;
        return this.outcomes.record(
          withParamsKept(waiting.execution, this.options.registry),
          cancelledBeforeStart(),
          "queued",
        );
      }
    }
    const running = this.inFlight.get(id);
    if (!running) return undefined;
    running.controller.abort("cancel");
    return running.finished;
  }

  get load(): { running: number; queued: number } {
    return { running: this.inFlight.size, queued: this.queue.pending };
  }

  /**
   * Stops taking work, lets running executions finish until `deadlineMs`, then aborts the
   * rest (they end `execution_interrupted`). Queued ones stay queued in the store for the
   * next process to run. Outcomes the store refused are tried again until the deadline.
   */
  async stop(deadlineMs: number): Promise<void> {
    const stopAt = Date.now() + deadlineMs;
    this.accepting = false;
    this.queue.stop();
    this.endedElsewhere.stop();
    const all = () => Promise.allSettled([...this.inFlight.values()].map((f) => f.finished));
    const deadline = new Promise<void>((resolve) => {
      this.endStopWait = resolve;
      if (this.interrupted) resolve();
      else setTimeout(resolve, deadlineMs).unref();
    });
    // A look for orphans under way may record what it took over: done before the outcomes stop.
    await Promise.race([this.presence.stop(), deadline]);
    await Promise.race([all(), deadline]);
    for (const flight of this.inFlight.values()) flight.controller.abort("shutdown");
    await all();
    // Outcomes the store refuses (a full disk) are tried until the deadline, and for a
    // moment at least when the runs took all of it (within the shutdown's grace).
    await this.outcomes.stop(Math.max(stopAt - Date.now(), LAST_OUTCOME_TRIES_MS));
    await this.presence.retire();
  }

  /**
   * Makes a stop (under way, or the next one) end the running executions now, as its
   * deadline would (`execution_interrupted`), instead of waiting for them: a second signal.
   * Returns how many are running.
   */
  interrupt(): number {
    this.interrupted = true;
    this.endStopWait?.();
    return this.inFlight.size;
  }

  /**
   * Runs an execution, its params whole; `slot`: the async queue's slot it holds (none for
   * a sync one); `kept`: its record as stored while it runs, when the caller made it.
   */
  private run(
    execution: StoredExecution,
    { onProgress, signal, onLog }: RunHooks,
    begin: Begin,
    slot?: AsyncSlot,
    kept?: KeptExecution,
  ): Promise<StoredExecution> {
    const { store, clock, events, registry } = this.options;
    const controller = new LazyAbortController();
    const id = execution.record.id;
    slot?.stopWith((reclaim) => controller.preempt({ ...reclaim, slot: "async" }));
    const cancel = () => controller.abort("cancel");
    if (signal?.aborted) cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    const finished = (async () => {
      // The record as stored and shared from now on, without the credentials it was given
      // (README, "What is kept of an execution"); the skill runs with the whole params.
      const { params } = execution;
      let running = kept ?? withParamsKept(execution, registry);
      const saves = new RunningRecordSaves(
        (next) => store.executions.save(next),
        (err) => this.options.logger.error({ err, execution_id: id }, "could not store a running record"),
        // A new (sync) run's first record is saved alongside the run, not before it.
        begin !== "new",
      );
      if (begin === "new") {
        // Not awaited: the terminal save usually lands in the same group commit. If the
        // process dies first, the client got no answer and recovery ends the record.
        saves.saveNow(running);
      } else if (begin === "queued") {
        // Stored running with its params masked in the same statement (`start`).
        running = markRunning(running, clock.now());
        const started = await startQueued(store, running, controller);
        // Marked running above for the start the store refused: the record ends with no start.
        if (started === "cancelled") return this.outcomes.record(running, cancelledBeforeStart(), "queued");
        if (started !== "ours") {
          // Another runner took it meanwhile, or it was cancelled: not ours to run.
          const stored = await store.executions.get(id);
          // Unless the start that failed before was stored after all (its answer lost).
          if (stored?.record.status !== "running" || stored.runnerId !== this.runnerId) {
            return stored ?? execution;
          }
          running = { ...running, record: stored.record };
        }
      }
      // Async executions are the ones others follow from other processes (polls, streams):
      // their status changes go to them as signals. A sync run's do not: every sync execute
      // would pay two signals for followers who find its changes by polling the store anyway.
      const share = { share: running.async };
      events.emit(id, { type: "status", record: running.record }, share);
      /** The running record changes while the run goes on: stored, and told to its followers. */
      const changeRunning = (next: KeptExecution) => {
        running = next;
        saves.change(next);
        events.emit(id, { type: "status", record: next.record }, share);
      };
      const entry = registry.get(running.record.skill_id);
      // What the skill logs reaches the server's log masked, as its thrown error does.
      const ownLogger = maskingLogger(
        lazyChildLogger(this.options.logger, { execution_id: id, skill_id: running.record.skill_id }),
      );
      const logger = onLog ? teeLogger(ownLogger, onLog) : ownLogger;
      const outcome: RunOutcome = entry
        ? await runSkill(entry.skill, params, {
            timeoutMs: running.timeoutMs,
            controller,
            logger,
            executor: this.options.executor,
            hooks: {
              waitingForThread: () => {
                slot?.waitingForThread();
                changeRunning(markWaitingForThread(running));
              },
              started: () => {
                slot?.started();
                // A run that waited for a thread starts now; others started as they were taken.
                if (running.record.started_at === null) changeRunning(markRunning(running, clock.now()));
              },
            },
            context: skillContext({
              executionId: id,
              owner: running.owner,
              config: this.options.skillConfig[running.record.skill_id] ?? {},
              logger,
              controller,
              store,
              clock,
              // Progress is shared whatever the mode: no poll finds it, and only a skill
              // that reports some pays, at the pace it reports (util.wait: once a second).
              // An update that cannot be told is dropped and logged here (`skillProgress`).
              progress: skillProgress(ownLogger, (shown) => {
                events.emit(id, progressEvent(id, shown), { share: true });
                onProgress?.(shown);
              }),
            }),
          })
        : failedOutcome(
            "execution_failed",
            `The skill ${running.record.skill_id} is no longer available.`,
            0,
          );
      saves.end();
      // Asked if the outcome is given up: the running record's save may be answered after it.
      return this.outcomes.record(running, outcome, () => saves.held());
    })();
    this.inFlight.set(id, { controller, finished });
    return finished.finally(() => {
      this.inFlight.delete(id);
      signal?.removeEventListener("abort", cancel);
    });
  }

  /** Throws `service_unavailable` once the runner stops taking work (shutting down). */
  assertAccepting(): void {
    if (!this.accepting) throw shuttingDownError();
  }
}
