import { type Clock, isoTimestamp } from "../clock.js";
import { ServiceError, STORE_OUTAGE_RETRY_AFTER_SECONDS, shuttingDownError } from "../errors.js";
import { newId } from "../ids.js";
import type { ConcurrencyGate, ReleaseSlot } from "../limits/concurrency-gate.js";
import { type LogEntry, type Logger, lazyChildLogger, teeLogger } from "../logger.js";
import type { RunnerInfo, Store } from "../ports.js";
import type { SkillRegistry } from "../skills/registry.js";
import type { ProgressUpdate } from "../skills/skill.js";
import { AsyncSlot } from "./async-slot.js";
import type { ExecutionEvents } from "./events.js";
import { LazyAbortController } from "./lazy-abort-controller.js";
import { markFinished, markRunning, markWaitingForThread, runningFor } from "./new-record.js";
import { isTerminal, type StoredExecution } from "./record.js";
import { type KeptExecution, withParamsKept } from "./redacted-execution.js";
import { cancelledOutcome, failedOutcome, type RunOutcome, runSkill } from "./run-skill.js";
import { processHost } from "./runner-host.js";
import { isRunnerGone } from "./runner-liveness.js";
import { saveOutcome } from "./save-outcome.js";
import { skillContext } from "./skill-context.js";
import type { SkillExecutor } from "./skill-executor.js";
import { UnsavedOutcomes } from "./unsaved-outcomes.js";
import { WorkQueue } from "./work-queue.js";

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
   * could not start yet; six beats of silence mean a runner died.
   */
  heartbeatMs?: number;
  /** Where skills run (isolated in workers, or on this thread). */
  executor: SkillExecutor;
  /** Slots of unfinished executions; queued work taken over from a dead process holds one too. */
  concurrency: ConcurrencyGate;
  /**
   * How long another owner's async execution waits for a slot before one is taken back
   * for it from an owner holding more than an even share (see `AsyncSlot`; default 5 s).
   */
  asyncReclaimAfterMs?: number;
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

/**
 * Where an execution stands when this runner begins it: a sync one just created (running,
 * not stored yet), a queued one this runner holds, or one stored running already (by
 * `takeQueued`, or by a caller that must know it is stored before the skill starts), its
 * params stored masked (`withParamsKept`). The execution given holds them whole in each case.
 */
type Begin = "new" | "queued" | "stored";

interface Job {
  execution: StoredExecution;
  hooks: RunHooks;
  begin: Begin;
  /** Gives back the execution's concurrency slot once it ended. */
  release: ReleaseSlot;
  /** Its slot of the async queue, and what it does when the slot is asked back. */
  slot: AsyncSlot;
}

/**
 * Runs executions in this process: sync ones at once, async ones through a bounded
 * queue. It writes each record's transitions (queued → running → terminal), owns the
 * abort controllers that timeouts, cancellation and shutdown fire, and on start-up takes
 * over the executions a dead process left behind.
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
  private readonly queue: WorkQueue<Job>;
  private readonly unsaved: UnsavedOutcomes;
  private readonly heartbeatMs: number;
  private timer: NodeJS.Timeout | undefined;
  private endedElsewhereTimer: NodeJS.Timeout | undefined;
  private accepting = true;
  /**
   * Since when (Unix ms) this runner's heartbeats have landed without a break; undefined
   * before the first and after one failed. Others' silence counts only from then on (see
   * `isRunnerGone`).
   */
  private watchingSinceMs: number | undefined;
  /** When the last heartbeat landed; undefined after one failed. */
  private lastBeatMs: number | undefined;
  /**
   * Queued executions whose start the store refused (an outage), by id: each is queued here
   * again after a beat, holding its key's concurrency hold meanwhile.
   */
  private readonly startRetries = new Map<string, { job: Job; timer: NodeJS.Timeout }>();
  /** Set by `interrupt`: the stop waits no longer for running executions. */
  private interrupted = false;
  /** Ends the stop's wait for running executions (once the stop has begun). */
  private endStopWait: (() => void) | undefined;

  constructor(private readonly options: ExecutionRunnerOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 5_000;
    this.unsaved = new UnsavedOutcomes({
      save: (execution) => saveOutcome(options.store.executions, execution),
      // Another process may have ended it meanwhile: what is stored is announced.
      onSaved: (stored) => this.announce(stored),
      logger: options.logger,
    });
    this.queue = new WorkQueue<Job>(
      options.asyncConcurrency,
      async (job, releaseSlot) => {
        job.slot.granted(releaseSlot);
        try {
          await this.run(job.execution, job.hooks, job.begin, job.slot);
        } catch (err) {
          // Still queued in the store: it keeps its key's concurrency hold until it runs.
          if (err instanceof NotStarted) return this.startAgainLater(job, err.cause);
          this.logAsyncFailure(job.execution, err);
        }
        job.release();
      },
      {
        reclaim: ({ execution, slot }, reclaim) => {
          options.logger.warn(
            {
              execution_id: execution.record.id,
              owner: execution.owner,
              held_ms: Math.round(reclaim.heldMs),
            },
            "an async execution's slot is asked back for another owner's waiting execution",
          );
          slot.reclaim(reclaim);
        },
        idle: ({ slot }) => slot.idle,
        reclaimAfterMs: options.asyncReclaimAfterMs,
      },
    );
  }

  /** Registers this process and takes over what dead ones left; then keeps doing so periodically. */
  async start(): Promise<void> {
    await this.heartbeat();
    // At once for runners in this PID namespace, judged by their pids (a restart after
    // SIGKILL recovers what it left as it starts). Others are judged by their silence, and
    // that counts only from this first beat on, so none of them is taken over here: a
    // replica that cannot reach the store fails to start and is restarted until it can,
    // so it starts just as the store comes back, before its live peers' first beats after
    // the outage have landed.
    await this.recoverOrphans();
    let beats = 0;
    this.timer = setInterval(() => {
      beats++;
      // Orphans appear only when another process dies: looking every few beats is enough.
      const work = this.heartbeat()
        .then(() => (beats % 6 === 0 ? this.recoverOrphans() : undefined))
        .then(() => this.dropWaitingEndedElsewhere())
        .then(() => this.takeWaiting());
      work.catch((err: unknown) => this.options.logger.error({ err }, "runner heartbeat failed"));
    }, this.heartbeatMs);
    this.timer.unref();
    // Without signals this is how a cancel recorded by another process reaches its run.
    // With them, a cancel signal lost (the listening connection dead and not yet noticed,
    // or reconnecting) would leave the run going after the API answered `cancelled`: the
    // same look, less often, bounds that (README: "A cancel stops the run wherever it runs").
    const endedElsewherePollMs = this.options.store.signals
      ? ENDED_ELSEWHERE_SAFETY_NET_MS
      : ENDED_ELSEWHERE_POLL_MS;
    let checking = false;
    this.endedElsewhereTimer = setInterval(() => {
      // One look at a time: during an outage each read waits for the store's deadline.
      if (checking) return;
      checking = true;
      this.stopRunsEndedElsewhere()
        .catch((err: unknown) => {
          // The store out of reach is logged where requests meet it; this look only waits.
          const log = this.options.store.isOutage(err) ? this.options.logger.warn : this.options.logger.error;
          log.call(this.options.logger, { err }, "could not check for runs ended by another process");
        })
        .finally(() => {
          checking = false;
        });
    }, endedElsewherePollMs);
    this.endedElsewhereTimer.unref();
  }

  /**
   * Runs a sync execution (its params whole) to its end; resolves with the committed
   * terminal record. `stored`: its running record as committed already (else it is saved
   * alongside the run).
   */
  runNow(execution: StoredExecution, hooks: RunHooks = {}, stored?: KeptExecution): Promise<StoredExecution> {
    this.assertAccepting();
    return this.run(execution, hooks, stored ? "stored" : "new", undefined, stored);
  }

  /**
   * Queues an async execution whose `queued` record is already stored; `release` gives
   * back its concurrency slot when it ends. Once shutdown has begun it is not refused: its
   * stored record was promised a run, so it stays queued in the store, as the executions
   * waiting here do, for the next process (or another one on the same store) to run.
   */
  enqueue(execution: StoredExecution, hooks: RunHooks, release: ReleaseSlot): void {
    if (!this.accepting) {
      release();
      return;
    }
    this.queueRun(execution, "queued", release, hooks);
  }

  /** Queues an async execution for a slot of this runner (see `WorkQueue`). */
  private queueRun(
    execution: StoredExecution,
    begin: Begin,
    release: ReleaseSlot,
    hooks: RunHooks = {},
  ): void {
    this.queue.push(execution.record.id, execution.owner, {
      execution,
      hooks,
      begin,
      release,
      slot: new AsyncSlot(),
    });
  }

  /**
   * A queued execution whose start the store refused stays queued in the store (this
   * runner's, so no other takes it before a beat, and no look for orphans ever): it is
   * queued here again after a beat, until the store takes its start. A stop meanwhile lets
   * go of it, queued in the store for the next process.
   */
  private startAgainLater(job: Job, cause: unknown): void {
    const { store, logger } = this.options;
    const id = job.execution.record.id;
    if (!this.accepting) {
      job.release();
      return;
    }
    const log = store.isOutage(cause) ? logger.warn : logger.error;
    log.call(
      logger,
      { err: cause, execution_id: id },
      "could not start a queued execution; trying again in a beat",
    );
    const timer = setTimeout(() => {
      this.startRetries.delete(id);
      this.queueRun(job.execution, job.begin, job.release, job.hooks);
    }, this.heartbeatMs);
    timer.unref();
    this.startRetries.set(id, { job, timer });
  }

  /** Takes an execution out of those waiting to be started again; undefined when it is not one. */
  private takeStartRetry(id: string): Job | undefined {
    const retry = this.startRetries.get(id);
    if (!retry) return undefined;
    clearTimeout(retry.timer);
    this.startRetries.delete(id);
    return retry.job;
  }

  /** An async execution's run failed after it started: its outcome could not be stored (or read back). */
  private logAsyncFailure(execution: StoredExecution, err: unknown): void {
    const { logger } = this.options;
    const fields = { err, execution_id: execution.record.id };
    // An outage: the outcome is stored as soon as the store is back (`UnsavedOutcomes`).
    if (err instanceof ServiceError && err.code === "service_unavailable") {
      logger.warn(fields, "could not store an async execution's outcome yet: the store is unavailable");
    } else {
      logger.error(fields, "an async execution ended, but its outcome could not be stored");
    }
  }

  /**
   * Cancels an execution this process holds and resolves with its terminal record, or
   * returns undefined when this process does not hold it.
   */
  async cancelLocal(id: string): Promise<StoredExecution | undefined> {
    const waiting = this.queue.remove(id) ?? this.takeStartRetry(id);
    if (waiting) {
      waiting.release();
      // Another process may have taken it meanwhile (or ended it): this copy, still queued,
      // must not be stored over its record. The caller then cancels it as another's.
      if (!(await this.stillOurs(id))) return undefined;
      return this.finish(
        withParamsKept(waiting.execution, this.options.registry),
        cancelledOutcome("The execution was cancelled before it started.", 0),
      );
    }
    const running = this.inFlight.get(id);
    if (!running) return undefined;
    running.controller.abort("cancel");
    return running.finished;
  }

  get load(): { running: number; queued: number } {
    return { running: this.inFlight.size, queued: this.queue.pending + this.startRetries.size };
  }

  /**
   * Stops taking work, lets running executions finish until `deadlineMs`, then aborts the
   * rest (they end `execution_interrupted`). Queued ones stay queued in the store for the
   * next process to run.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.accepting = false;
    // A slot freed from now on must not start a queued execution: the process would
    // leave it running, and the next one would end it interrupted instead of running it.
    this.queue.stopStarting();
    for (const id of [...this.startRetries.keys()]) this.takeStartRetry(id)?.release();
    if (this.timer) clearInterval(this.timer);
    if (this.endedElsewhereTimer) clearInterval(this.endedElsewhereTimer);
    const all = () => Promise.allSettled([...this.inFlight.values()].map((f) => f.finished));
    const deadline = new Promise<void>((resolve) => {
      this.endStopWait = resolve;
      if (this.interrupted) resolve();
      else setTimeout(resolve, deadlineMs).unref();
    });
    await Promise.race([all(), deadline]);
    for (const flight of this.inFlight.values()) flight.controller.abort("shutdown");
    await all();
    await this.unsaved.stop();
    // A store out of reach must not turn a planned stop into a failed one: peers judge a
    // runner that was not retired by its pid or its silent heartbeat and take over alike.
    await this.options.store.executions.retireRunner(this.runnerId).catch((err: unknown) => {
      this.options.logger.warn({ err }, "could not retire this runner in the store");
    });
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
      const logSaveFailure = (err: unknown) => {
        this.options.logger.error({ err, execution_id: id }, "could not store a running record");
      };
      // The running record's saves, one after the other: a store may commit concurrent saves
      // of one record in any order (PostgreSQL's `SaveBatcher`). None once the run has ended.
      let saved: Promise<void> = Promise.resolve();
      let ended = false;
      if (begin === "new") {
        // Not awaited: the terminal save usually lands in the same group commit. If the
        // process dies first, the client got no answer and recovery ends the record.
        saved = store.executions.save(running).then(() => {}, logSaveFailure);
      } else if (begin === "queued") {
        // Stored running with its params masked in the same statement (`start`).
        running = markRunning(running, clock.now());
        const started = await this.startQueued(running, controller);
        if (started === "cancelled") {
          return this.finish(running, cancelledOutcome("The execution was cancelled before it started.", 0));
        }
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
      // Async executions are the ones others follow from other processes (polls, streams).
      const share = { share: running.async };
      events.emit(id, { type: "status", record: running.record }, share);
      /** The running record changes while the run goes on: stored, and told to its followers. */
      const changeRunning = (next: KeptExecution) => {
        running = next;
        saved = saved.then(() =>
          ended ? undefined : store.executions.save(next).then(() => {}, logSaveFailure),
        );
        events.emit(id, { type: "status", record: next.record }, share);
      };
      const entry = registry.get(running.record.skill_id);
      const ownLogger = lazyChildLogger(this.options.logger, {
        execution_id: id,
        skill_id: running.record.skill_id,
      });
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
              progress: (update) => {
                events.emit(id, { type: "progress", execution_id: id, ...update }, share);
                onProgress?.(update);
              },
            }),
          })
        : failedOutcome(
            "execution_failed",
            `The skill ${running.record.skill_id} is no longer available.`,
            0,
          );
      ended = true;
      return this.finish(running, outcome);
    })();
    this.inFlight.set(id, { controller, finished });
    return finished.finally(() => {
      this.inFlight.delete(id);
      signal?.removeEventListener("abort", cancel);
    });
  }

  /**
   * Stores a queued execution running (`store.executions.start`): "ours" when it did,
   * "taken" when another runner took it or it ended meanwhile. A start the store refused
   * throws `NotStarted` (it stays queued), unless a cancel came meanwhile: "cancelled".
   */
  private async startQueued(
    running: KeptExecution,
    controller: LazyAbortController,
  ): Promise<"ours" | "taken" | "cancelled"> {
    try {
      return (await this.options.store.executions.start(running)) ? "ours" : "taken";
    } catch (err) {
      if (controller.reason === "cancel") return "cancelled";
      throw new NotStarted(err);
    }
  }

  /** Stores the outcome; resolves with the terminal record as stored, which is the answer. */
  private async finish(
    execution: KeptExecution,
    outcome: RunOutcome,
    endedAtMs = this.options.clock.now(),
  ): Promise<StoredExecution> {
    const { store, registry } = this.options;
    const ended = markFinished(execution, outcome, endedAtMs, registry);
    let stored: StoredExecution;
    try {
      stored = await saveOutcome(store.executions, ended);
    } catch (err) {
      // The caller hears of the failure; the record is stored as soon as the store takes it.
      this.unsaved.add(ended);
      // Logged where every outage is, once the surface maps it (`Skillport.errorOf`).
      throw store.isOutage(err) ? outcomeNotStored(ended, err) : err;
    }
    this.announce(stored);
    return stored;
  }

  /** Tells the execution's followers its terminal record, as stored. */
  private announce(stored: StoredExecution): void {
    this.options.events.emit(
      stored.record.id,
      { type: "status", record: stored.record },
      { share: stored.async },
    );
  }

  /**
   * Without a channel between processes (the SQLite store), a cancel made by another
   * process on the same data directory is only recorded there. The runs this process holds
   * whose record ended that way are stopped here, as a cancel sent over a channel would
   * (their own outcome then gives way to the stored one: see `finish`).
   */
  private async stopRunsEndedElsewhere(): Promise<void> {
    for (const [id, flight] of [...this.inFlight]) {
      const stored = await this.options.store.executions.get(id);
      if (stored && isTerminal(stored.record.status)) flight.controller.abort("cancel");
    }
  }

  /**
   * Lets go of the waiting executions another process cancelled or took over (a runner
   * takes those left waiting over a beat): they would hold their key's concurrency slots,
   * and the process's pending count, here until a slot of this runner freed.
   */
  private async dropWaitingEndedElsewhere(): Promise<void> {
    for (const id of this.queue.waitingIds()) {
      if (!(await this.stillOurs(id))) this.queue.remove(id)?.release();
    }
  }

  /**
   * Whether the store still has the execution unfinished and this runner's (queued, or
   * running for one taken from the store's waiting ones, `begin: "stored"`).
   */
  private async stillOurs(id: string): Promise<boolean> {
    const stored = await this.options.store.executions.get(id);
    return stored !== undefined && !isTerminal(stored.record.status) && stored.runnerId === this.runnerId;
  }

  private async heartbeat(): Promise<void> {
    const { clock, store } = this.options;
    const info: RunnerInfo = {
      id: this.runnerId,
      host: processHost(),
      pid: process.pid,
      heartbeatAt: clock.now(),
    };
    try {
      await store.executions.heartbeat(info);
    } catch (err) {
      this.lastBeatMs = undefined;
      throw err;
    }
    const nowMs = clock.now();
    // A break: the store was out of reach (a beat failed, or hung and landed late, as a
    // query does while the network drops its packets), or this process did not run. Peers
    // cut off as long as this runner could not beat either, so their silence says nothing
    // until they had a stale period to beat again (audit 18, finding 2: after an outage of
    // PostgreSQL, a replica's first beat was its look for orphans, and it took over its
    // live peers' running executions).
    if (this.lastBeatMs === undefined || nowMs - this.lastBeatMs > 2 * this.heartbeatMs) {
      this.watchingSinceMs = nowMs;
    }
    this.lastBeatMs = nowMs;
  }

  /**
   * Runs queued executions other runners left waiting over a beat (busy or gone), as many
   * as this runner has free slots for.
   */
  private async takeWaiting(): Promise<void> {
    const room = this.queue.room;
    if (room === 0 || !this.accepting) return;
    const now = this.options.clock.now();
    const taken = await this.options.store.executions.takeQueued(
      this.runnerId,
      room,
      isoTimestamp(now - this.heartbeatMs),
      isoTimestamp(now),
      // Stored running without its credentials; the run gets them whole (as `taken`).
      (execution) => withParamsKept(execution, this.options.registry).params,
    );
    for (const execution of taken) {
      this.queueRun(execution, "stored", this.options.concurrency.track(execution.keyId));
    }
  }

  /** Queued orphans run here; running ones were cut off mid-run and end `execution_interrupted`. */
  private async recoverOrphans(): Promise<void> {
    const nowMs = this.options.clock.now();
    const judge = {
      id: this.runnerId,
      host: processHost(),
      pid: process.pid,
      watchingSinceMs: this.watchingSinceMs ?? nowMs,
    };
    // The runners judged gone, for the log line: a claimed orphan holds this runner's id now.
    const gone = new Map<string, RunnerInfo>();
    const orphans = await this.options.store.executions.claimOrphans(this.runnerId, (runner) => {
      const isGone = isRunnerGone(runner, judge, this.options.clock.now(), this.heartbeatMs * 6);
      if (isGone && runner) gone.set(runner.id, runner);
      return isGone;
    });
    for (const orphan of orphans) {
      if (isTerminal(orphan.record.status)) continue;
      if (orphan.record.status === "queued" && this.accepting) {
        this.queueRun(orphan, "queued", this.options.concurrency.track(orphan.keyId));
      } else {
        // Ended when its process died, not now: the time since (a restart overnight, say)
        // is no part of its run. The last heartbeat bounds that moment, to within a beat.
        const beat = orphan.lastHeartbeatAt;
        const now = this.options.clock.now();
        const endedAtMs = beat === undefined ? now : Math.min(now, beat + this.heartbeatMs);
        const startedAtMs = Date.parse(orphan.record.started_at ?? orphan.record.created_at);
        const cutOffAtMs = Math.max(endedAtMs, startedAtMs);
        await this.finish(
          // A queued one's params are whole, and so are those of a running one an earlier version stored.
          withParamsKept(orphan, this.options.registry),
          failedOutcome(
            "execution_interrupted",
            "The process running the execution stopped before it ended.",
            runningFor(orphan, cutOffAtMs),
          ),
          cutOffAtMs,
        );
      }
    }
    if (orphans.length > 0) {
      this.options.logger.warn(
        {
          count: orphans.length,
          // The first few: an operator looks one up, and a crash may have left thousands.
          execution_ids: orphans.slice(0, TAKEOVER_IDS_LOGGED).map((orphan) => orphan.record.id),
          // Runners without a row (deleted, or never written) are gone but cannot be named.
          stopped_runners: [...gone.values()].map(({ id, host, pid }) => ({ runner_id: id, host, pid })),
        },
        "took over executions of a stopped process",
      );
    }
  }

  /** Throws `service_unavailable` once the runner stops taking work (shutting down). */
  assertAccepting(): void {
    if (!this.accepting) throw shuttingDownError();
  }
}

/**
 * The answer to a caller whose execution ended but whose outcome the store could not take
 * (an outage): a 503 like any outage, but one that says the skill ran. A client repeating
 * the request without its Idempotency-Key would run it again, which "retry later" alone
 * would invite.
 */
function outcomeNotStored(execution: StoredExecution, cause: unknown): ServiceError {
  const { id, status } = execution.record;
  return new ServiceError("service_unavailable", {
    message:
      `The execution ${id} ran and ended ${status}, but the store is unavailable and could not record it yet; ` +
      `it is recorded as soon as the store is back (GET /v1/executions/${id}). ` +
      "Repeating the request runs the skill again unless it carries the same Idempotency-Key.",
    retryAfterSeconds: STORE_OUTAGE_RETRY_AFTER_SECONDS,
    cause,
  });
}

/** A queued execution's start the store refused (`cause`): it is still queued there, and this runner's. */
class NotStarted extends Error {
  constructor(cause: unknown) {
    super("the store refused a queued execution's start", { cause });
  }
}

/** How often runs are checked for a cancel another process recorded (stores without signals). */
const ENDED_ELSEWHERE_POLL_MS = 1_000;
/** The same where signals bring cancels: only for the ones lost on the way. */
const ENDED_ELSEWHERE_SAFETY_NET_MS = 5_000;
/** How many ids of the executions taken over from stopped processes one log line names. */
const TAKEOVER_IDS_LOGGED = 20;
