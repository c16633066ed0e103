import type { ProgressUpdate } from "../core/skills/skill.js";

/**
 * What crosses between the main thread and a skill worker. Tasks and results travel
 * through the pool's own channel; everything said while a skill runs (progress, logs,
 * calls to the owner's messages and memory, and the abort) through two BroadcastChannels
 * named after the pool: no per-task channel to set up on the hot path.
 */

/** Given to every worker of a pool (`workerData`). */
export interface WorkerSetup {
  /** Prefix of the pool's two BroadcastChannels (`<name>:up`, `<name>:down`). */
  channelName: string;
  /** file: URLs of the modules whose exported skills the worker can run. */
  skillModules: string[];
}

/** One skill run, as handed to a worker. */
export interface SkillTask {
  executionId: string;
  skillId: string;
  params: Record<string, unknown>;
  owner: string;
  config: Readonly<Record<string, unknown>>;
}

/**
 * A run's end, as a worker answers it; errors cross as plain data. `relayed` counts the
 * messages the run sent on the up channel, which has no ordering with the pool's own: the
 * main thread settles the run only once it has them all (the last progress included).
 */
export type TaskResult = ({ ok: true; value: unknown } | { ok: false; error: CrossedError }) & {
  relayed: number;
};

export interface CrossedError {
  /** `skill`: a SkillError, its message meant for the caller; `unexpected`: a bug. */
  kind: "skill" | "unexpected";
  name: string;
  message: string;
  stack?: string;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
export type OwnerTarget = "messages" | "memory";

/** Worker → main thread (on `<name>:up`). */
export type UpMessage =
  | { type: "progress"; executionId: string; update: ProgressUpdate }
  | { type: "log"; executionId: string; level: LogLevel; obj: object; msg?: string }
  | {
      type: "call";
      executionId: string;
      callId: string;
      target: OwnerTarget;
      method: string;
      args: unknown[];
    };

/** Main thread → workers (on `<name>:down`); each worker keeps what concerns its run. */
export type DownMessage =
  | { type: "abort"; executionId: string; reason: unknown }
  | { type: "reply"; callId: string; ok: true; value: unknown }
  | { type: "reply"; callId: string; ok: false; message: string };

export function upChannelName(channelName: string): string {
  return `${channelName}:up`;
}

export function downChannelName(channelName: string): string {
  return `${channelName}:down`;
}

/**
 * What the server gives its skill host (skill-host.ts) on start, as the process's one
 * argument: how to run its pool of worker threads.
 */
export interface HostSetup {
  /** file: URL of the worker threads' entry. */
  workerUrl: string;
  threads: number;
  /** Old-generation heap of one worker thread, in MiB. */
  memoryMb: number;
  maxQueue: number;
  worker: WorkerSetup;
}

/** An error of the pool as it crosses from the host: what the server's checks read. */
export interface HostError {
  name: string;
  message: string;
  code?: string;
}

/** Server → skill host. */
export type ToHost =
  | { type: "run"; runId: number; task: SkillTask }
  /** The run's time is up: its worker is terminated. */
  | { type: "terminate"; runId: number }
  /** For the workers' down channel. */
  | { type: "down"; message: DownMessage }
  /** Are you there? (answered with `pong`: see SkillHostProcess's watchdog) */
  | { type: "ping" };

/** Skill host → server. */
export type FromHost =
  | { type: "ran"; runId: number; result: TaskResult }
  | { type: "failed"; runId: number; error: HostError }
  /** From the workers' up channel. */
  | { type: "up"; message: UpMessage }
  /** A worker failed between runs (the pool replaces it). */
  | { type: "pool-error"; error: HostError }
  | { type: "pong" };
