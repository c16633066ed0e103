import { type ChildProcess, fork } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Logger } from "../core/logger.js";
import { logHostOutput } from "./host-output.js";
import type {
  DownMessage,
  FromHost,
  HostError,
  HostSetup,
  SkillTask,
  TaskResult,
  ToHost,
  UpMessage,
} from "./worker-messages.js";

export interface SkillHostOptions {
  /** The host's entry: `skill-host.js`, or `skill-host.ts` from the sources (run through tsx). */
  hostUrl: URL;
  setup: HostSetup;
  /** What the workers say while their runs go on. */
  onUp(message: UpMessage): void;
  logger: Logger;
  /**
   * A host with runs under way that says nothing (not even to a ping) for this long is
   * stuck (stopped, or its event loop blocked): it is killed, its runs fail, and the next
   * run starts a new one. Default 15 s; its main thread only relays, so a live host
   * answers within milliseconds.
   */
  unresponsiveAfterMs?: number;
}

/** The code of the error a run gets when the host process dies under it. */
export const HOST_EXITED = "ERR_SKILL_HOST_EXITED";

const DEFAULT_UNRESPONSIVE_AFTER_MS = 15_000;

interface PendingRun {
  resolve(result: TaskResult): void;
  reject(err: Error): void;
}

/**
 * The server's side of the skill host (skill-host.ts): starts the process, hands it runs,
 * and relays the workers' messages both ways. When the process dies (a worker's heap
 * blew up past what its limit contains), every run in it fails with `HOST_EXITED` and the
 * next run starts a new host: the server itself never goes down with a skill.
 */
export class SkillHostProcess {
  private child: ChildProcess | undefined;
  private readonly runs = new Map<number, PendingRun>();
  private nextRunId = 1;
  private closed = false;
  /** When the current host last said anything (a ping's pong included). */
  private lastHeardAt = 0;
  private watchdog: NodeJS.Timeout | undefined;
  /** A host killed for saying nothing: its runs fail saying so. */
  private killedAsUnresponsive: ChildProcess | undefined;

  constructor(private readonly options: SkillHostOptions) {}

  /** Runs under way in the host. */
  get pending(): number {
    return this.runs.size;
  }

  /** Whether a host process is up (it starts on the first run, or `start`). */
  get running(): boolean {
    return this.child !== undefined;
  }

  start(): void {
    this.process();
  }

  /** Runs a task in a worker; aborting `termination` terminates that worker. */
  run(task: SkillTask, termination: AbortSignal): Promise<TaskResult> {
    if (this.closed) return Promise.reject(new Error("The skill host is closed."));
    const child = this.process();
    const runId = this.nextRunId++;
    const terminate = () => this.send(child, { type: "terminate", runId });
    return new Promise<TaskResult>((resolve, reject) => {
      this.runs.set(runId, { resolve, reject });
      this.send(child, { type: "run", runId, task });
      this.watch(child);
      if (termination.aborted) terminate();
      else termination.addEventListener("abort", terminate, { once: true });
    }).finally(() => termination.removeEventListener("abort", terminate));
  }

  post(message: DownMessage): void {
    if (this.child) this.send(this.child, { type: "down", message });
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // The host destroys its pool and exits when its channel closes; a host that does not
    // within a few seconds is killed.
    child.disconnect();
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(kill);
  }

  /** The host process, started if there is none. */
  private process(): ChildProcess {
    if (this.child) return this.child;
    const { hostUrl, setup } = this.options;
    const child = fork(fileURLToPath(hostUrl), [JSON.stringify(setup)], {
      // Structured clone, as between threads: results keep their types and shared parts.
      serialization: "advanced",
      // From the sources the host is TypeScript; its workers get tsx's loader their own way.
      execArgv: hostUrl.pathname.endsWith(".ts") ? ["--import", "tsx"] : [],
      // What it writes reaches the server's JSON log (`logHostOutput`), never the server's
      // stdout: `skillport mcp` writes nothing but protocol messages there.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // A process group of its own: Ctrl-C in a terminal, Procfile runners and `tini -g`
      // signal the server's group, and the server's graceful shutdown, not the signal,
      // decides when runs end (the host also ignores such signals that reach it anyway, as
      // systemd's stop does). It still ends with the server: when its channel closes.
      detached: true,
    });
    this.lastHeardAt = Date.now();
    child.on("message", (message: FromHost) => {
      this.lastHeardAt = Date.now();
      this.onMessage(message);
    });
    child.once("exit", (code, signal) => this.onExit(child, code, signal));
    child.on("error", (err) => this.options.logger.error({ err }, "the skill host process failed"));
    // Neither the process nor its channel and pipes keep the server alive (`skillport mcp`
    // exits when its client leaves).
    child.unref();
    child.channel?.unref();
    for (const [name, stream] of [
      ["stdout", child.stdout],
      ["stderr", child.stderr],
    ] as const) {
      if (!stream) continue;
      logHostOutput(stream, name, this.options.logger);
      (stream as Readable & { unref?(): void }).unref?.();
    }
    this.child = child;
    return child;
  }

  private onMessage(message: FromHost): void {
    switch (message.type) {
      case "up":
        this.options.onUp(message.message);
        break;
      case "ran":
        this.settle(message.runId)?.resolve(message.result);
        break;
      case "failed":
        this.settle(message.runId)?.reject(crossedBack(message.error));
        break;
      case "pool-error":
        // A worker that dies between runs has no run to fail: log it; the pool replaces it.
        this.options.logger.error({ err: crossedBack(message.error) }, "a skill worker failed");
        break;
      case "pong":
        break;
    }
  }

  /**
   * While runs are under way, pings the host every third of `unresponsiveAfterMs`, and
   * kills it once it has said nothing for that long. A stopped or wedged host otherwise
   * held every isolated run until its timeout, run after run, while looking healthy.
   */
  private watch(child: ChildProcess): void {
    if (this.watchdog) return;
    const limitMs = this.options.unresponsiveAfterMs ?? DEFAULT_UNRESPONSIVE_AFTER_MS;
    // Silence before these runs (an idle host says nothing) does not count against it.
    this.lastHeardAt = Date.now();
    this.watchdog = setInterval(() => {
      if (this.child !== child || this.runs.size === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
        return;
      }
      const silentMs = Date.now() - this.lastHeardAt;
      if (silentMs < limitMs) {
        this.send(child, { type: "ping" });
        return;
      }
      this.options.logger.error(
        { silent_ms: silentMs, runs: this.runs.size },
        "the skill host process stopped answering; it is killed and its runs fail",
      );
      this.killedAsUnresponsive = child;
      child.kill("SIGKILL");
    }, limitMs / 3);
    this.watchdog.unref();
  }

  private settle(runId: number): PendingRun | undefined {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    return run;
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child === child) this.child = undefined;
    clearInterval(this.watchdog);
    this.watchdog = undefined;
    if (this.closed && this.runs.size === 0) return;
    const lost = [...this.runs.values()];
    this.runs.clear();
    // Closed by a shutdown whose deadline passed: its runs end interrupted, as intended.
    const [level, message] = this.closed
      ? (["info", "the skill host process stopped with the service"] as const)
      : ([
          "error",
          "the skill host process stopped; its runs failed, the next run starts a new one",
        ] as const);
    this.options.logger[level]({ code, signal, runs: lost.length }, message);
    for (const run of lost) {
      run.reject(
        Object.assign(new Error(`The skill host process stopped (${signal ?? `exit code ${code}`}).`), {
          code: HOST_EXITED,
          signal,
          unresponsive: this.killedAsUnresponsive === child,
        }),
      );
    }
  }

  private send(child: ChildProcess, message: ToHost): void {
    // A host that just died has no channel: its exit fails the run.
    if (child.connected) child.send(message);
  }
}

/** A pool error as the server rethrows it: the name, message and code the checks read. */
function crossedBack(error: HostError): Error {
  const err = new Error(error.message);
  err.name = error.name;
  if (error.code !== undefined) Object.assign(err, { code: error.code });
  return err;
}
