import type { ExecutorLoad, InvokeHooks, SkillExecutor } from "../core/execution/skill-executor.js";
import { isLightCall, runsIsolated } from "../core/execution/skill-executor.js";
import { FairSlots, type Reclaim } from "../core/fair-slots.js";
import { randomBase62 } from "../core/ids.js";
import type { Logger } from "../core/logger.js";
import { type Skill, type SkillContext, SkillError } from "../core/skills/skill.js";
import { HOST_EXITED, SkillHostProcess } from "./skill-host-process.js";
import { type SkillSource, skillsOf } from "./skill-modules.js";
import type {
  CrossedError,
  DownMessage,
  HostSetup,
  SkillTask,
  TaskResult,
  UpMessage,
} from "./worker-messages.js";

export interface WorkerPoolOptions {
  /** The skill host's entry (`skill-host.js`), the process that holds the threads. */
  hostUrl: URL;
  /** The compiled worker entry (`skill-worker.js`). */
  workerUrl: URL;
  /** The skills that may run isolated, and the modules every worker imports them from. */
  sources: readonly SkillSource[];
  /** Worker threads at most. */
  threads: number;
  /** Old-generation heap of one worker; a run that needs more ends its worker. */
  memoryMb: number;
  /** Runs that may wait for a free worker; beyond it a run fails at once. */
  maxQueue: number;
  logger: Logger;
  /**
   * After a run's signal fires, how long its worker may take to stop by itself before it
   * is terminated (a skill in a CPU loop never looks at its signal).
   */
  abortGraceMs?: number;
  /** When the threads start if no isolated skill ran before (default 1 s after construction). */
  startDelayMs?: number;
  /**
   * How long another owner's run waits before a thread is reclaimed for it from an owner
   * holding more than an even share (FairSlots; default 5 s).
   */
  reclaimAfterMs?: number;
  /** A host with runs under way that says nothing this long is killed (SkillHostProcess; default 15 s). */
  unresponsiveAfterMs?: number;
}

/**
 * Runs skills that are not light async I/O in a pool of worker threads (tinypool), each
 * with a heap limit, so a CPU loop, a catastrophic regular expression or a huge document
 * stalls neither the event loop nor other requests, and the main thread's timeout still
 * fires. A worker that overruns its run's timeout (after a grace period) or its memory
 * is terminated and replaced; the pool stays healthy. The pool lives in a child process,
 * the skill host (see SkillHostProcess): a heap blown up past what a thread's limit
 * contains takes down that process, not the server. Progress, logs and the owner's
 * messages and memory are relayed to the main thread; light skills run there directly.
 * The threads are shared fairly between owners (FairSlots), and a thread is reclaimed
 * from an owner holding more than an even share while another owner's run waits: the
 * caller stops its run (`InvokeHooks.preempted`), as a timeout stops it.
 */
export class WorkerPoolExecutor implements SkillExecutor {
  private readonly host: SkillHostProcess;
  private readonly startTimer: NodeJS.Timeout;
  private readonly isolatable: ReadonlySet<Skill>;
  /** The runs in workers, by execution id, to route what their workers say. */
  private readonly runs = new Map<string, RelayedRun>();
  private readonly abortGraceMs: number;
  /** The threads, shared fairly between owners. */
  private readonly slots: FairSlots;
  private closing = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.abortGraceMs = options.abortGraceMs ?? 500;
    this.slots = new FairSlots(options.threads, {
      reclaimAfterMs: options.reclaimAfterMs,
      // A reclaimed thread's run is terminated after its grace period at the latest.
      releaseWithinMs: this.abortGraceMs,
    });
    this.isolatable = new Set(skillsOf(options.sources).filter(runsIsolated));
    const setup: HostSetup = {
      workerUrl: options.workerUrl.href,
      threads: options.threads,
      memoryMb: options.memoryMb,
      maxQueue: options.maxQueue,
      worker: {
        channelName: `skillport-pool-${randomBase62(12)}`,
        skillModules: options.sources.map((source) => source.moduleUrl.href),
      },
    };
    this.host = new SkillHostProcess({
      hostUrl: options.hostUrl,
      setup,
      onUp: (message) => this.onWorkerMessage(message),
      logger: options.logger,
      unresponsiveAfterMs: options.unresponsiveAfterMs,
    });
    // The threads start shortly after the process, not with it: loading every skill's
    // libraries in two threads at once would slow start-up (an MCP client waiting for
    // tools/list), while the first isolated call comes rarely that soon.
    this.startTimer = setTimeout(() => this.host.start(), options.startDelayMs ?? 1_000);
    this.startTimer.unref();
  }

  invoke(
    skill: Skill,
    params: Record<string, unknown>,
    ctx: SkillContext,
    hooks: InvokeHooks = {},
  ): Promise<unknown> {
    if (!this.isolates(skill) || isLightCall(skill, params)) {
      hooks.started?.();
      return skill.run(params, ctx);
    }
    return this.runInWorker(skill, params, ctx, hooks);
  }

  isolates(skill: Skill): boolean {
    return this.isolatable.has(skill);
  }

  get load(): ExecutorLoad {
    if (!this.host.running) return { threads: 0, queued: 0 };
    const { threads } = this.options;
    return { threads, queued: this.slots.waiting + Math.max(0, this.host.pending - threads) };
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.startTimer);
    await this.host.close();
  }

  private async runInWorker(
    skill: Skill,
    params: Record<string, unknown>,
    ctx: SkillContext,
    { waitingForThread, started, preempted, deadlineMs }: InvokeHooks,
  ): Promise<unknown> {
    const { executionId, signal } = ctx;
    const task: SkillTask = { executionId, skillId: skill.id, params, owner: ctx.owner, config: ctx.config };
    const termination = new AbortController();
    let graceTimer: NodeJS.Timeout | undefined;
    // When the run's signal fires (its thread reclaimed too: see `preempted`), its worker is
    // asked to stop, and terminated if it has not after the grace period.
    const onAbort = () => {
      this.post({ type: "abort", executionId, reason: signal.reason });
      graceTimer = setTimeout(() => termination.abort(), this.abortGraceMs);
    };
    const onReclaim =
      preempted &&
      ((reclaim: Reclaim) => {
        this.options.logger.warn(
          { execution_id: executionId, owner: ctx.owner, held_ms: Math.round(reclaim.heldMs) },
          "a run's worker thread is reclaimed for another owner's waiting run",
        );
        preempted(reclaim);
      });
    const run: RelayedRun = { ctx, received: 0, expected: undefined, allReceived: undefined };
    this.runs.set(executionId, run);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      // The run waits for a thread here, in a turn fair between owners (see FairSlots); the
      // pool's own queue stays empty: it would serve first come, first served.
      const release = await this.slots.acquire(ctx.owner, {
        signal,
        onReclaim,
        onWait: waitingForThread,
        deadlineMs,
      });
      let result: TaskResult;
      try {
        started?.();
        result = await this.runTask(task, termination.signal);
      } finally {
        release();
      }
      if (result.relayed > run.received) {
        await new Promise<void>((resolve) => {
          run.expected = result.relayed;
          run.allReceived = resolve;
          // Never hang a run on a message that cannot come (they do not get lost; belt and braces).
          setTimeout(resolve, RELAY_WAIT_MS).unref();
        });
      }
      if (result.ok) return result.value;
      throw uncrossed(result.error);
    } catch (err) {
      throw this.explainPoolFailure(err);
    } finally {
      clearTimeout(graceTimer);
      signal.removeEventListener("abort", onAbort);
      this.runs.delete(executionId);
    }
  }

  /**
   * Runs a task in the pool, again if the pool handed it to a dying worker. When another
   * run's worker is terminated (after its grace period) and that worker's answer arrives
   * before it has exited, tinypool 2.2 frees the worker to its queue: the next task is
   * posted to a thread already told to stop, and fails with "Terminating worker thread".
   * That task never started (its message came after the termination began; a test checks
   * it), so running it again is safe for any skill. Its own termination, or the pool's
   * closing, ends it for good.
   */
  private async runTask(task: SkillTask, termination: AbortSignal): Promise<TaskResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.host.run(task, termination);
      } catch (err) {
        const handedToDyingWorker =
          isThreadTermination(err) && !termination.aborted && !this.closing && attempt < MAX_TASK_ATTEMPTS;
        if (!handedToDyingWorker) throw err;
        this.options.logger.debug(
          { execution_id: task.executionId, attempt },
          "a run handed to a stopping worker is submitted again",
        );
      }
    }
  }

  /** A worker's death or a full queue, in words for the record (a SkillError is shown). */
  private explainPoolFailure(err: unknown): unknown {
    const code = (err as { code?: unknown }).code;
    if (code === "ERR_WORKER_OUT_OF_MEMORY") {
      return new SkillError(
        `The execution needed more than its memory limit of ${this.options.memoryMb} MB and was stopped.`,
        { cause: err },
      );
    }
    if (code === HOST_EXITED) {
      const { signal, unresponsive } = err as { signal?: NodeJS.Signals | null; unresponsive?: boolean };
      // V8 aborts a process whose heap blew up (SIGABRT); the kernel's OOM killer sends SIGKILL.
      const why = unresponsive
        ? "it stopped answering and was replaced"
        : signal === "SIGABRT" || signal === "SIGKILL"
          ? `most likely because a run needed more than its memory limit of ${this.options.memoryMb} MB`
          : signal
            ? `it was ended by ${signal}`
            : "it exited unexpectedly";
      return new SkillError(`The execution was stopped: the process running it failed, ${why}.`, {
        cause: err,
      });
    }
    if (err instanceof Error && /queue is at limit/i.test(err.message)) {
      return new SkillError("The service is overloaded: no worker was free to run the skill. Retry later.", {
        cause: err,
      });
    }
    return err;
  }

  private onWorkerMessage(message: UpMessage): void {
    const run = this.runs.get(message.executionId);
    if (!run) return; // the run ended; what its worker still says is moot
    const { ctx } = run;
    switch (message.type) {
      case "progress":
        ctx.progress(message.update);
        break;
      case "log":
        ctx.logger[message.level](message.obj, message.msg);
        break;
      case "call":
        this.answerCall(ctx, message);
        break;
    }
    run.received++;
    if (run.expected !== undefined && run.received >= run.expected) run.allReceived?.();
  }

  /** Runs an owner-data call for a worker on the main thread's store and replies. */
  private answerCall(ctx: SkillContext, call: Extract<UpMessage, { type: "call" }>): void {
    const target = call.target === "messages" ? ctx.messages : ctx.memory;
    const method = OWNER_METHODS[call.target].has(call.method)
      ? (target as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[call.method]
      : undefined;
    const work = method
      ? Promise.resolve().then(() => method.apply(target, call.args))
      : Promise.reject(new Error(`unknown ${call.target} method ${call.method}`));
    work.then(
      (value) => this.post({ type: "reply", callId: call.callId, ok: true, value }),
      (err: unknown) => {
        ctx.logger.error({ err }, `a worker's ${call.target}.${call.method} call failed`);
        this.post({ type: "reply", callId: call.callId, ok: false, message: "the store call failed" });
      },
    );
  }

  private post(message: DownMessage): void {
    this.host.post(message);
  }
}

/** How long a finished run waits at most for the messages its worker relayed before the result. */
const RELAY_WAIT_MS = 1_000;

/** How often a task handed to a dying worker is submitted before its failure stands. */
const MAX_TASK_ATTEMPTS = 3;

/** tinypool's rejection of the tasks on a worker it terminates (it has no error code). */
function isThreadTermination(err: unknown): boolean {
  return err instanceof Error && err.message === "Terminating worker thread";
}

/** A run in a worker: its context, and the relayed messages received so far. */
interface RelayedRun {
  ctx: SkillContext;
  received: number;
  /** Set once the worker answered: how many it relayed, and who waits for them. */
  expected: number | undefined;
  allReceived: (() => void) | undefined;
}

const OWNER_METHODS = {
  messages: new Set(["send", "list", "has"]),
  memory: new Set(["get", "set", "delete", "list"]),
} as const;

/** A worker's error as the main thread rethrows it: a SkillError stays one. */
function uncrossed(error: CrossedError): Error {
  const err = error.kind === "skill" ? new SkillError(error.message) : new Error(error.message);
  err.name = error.name;
  if (error.stack !== undefined) err.stack = error.stack;
  return err;
}
