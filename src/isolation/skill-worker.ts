import { BroadcastChannel, threadId } from "node:worker_threads";
import { Tinypool } from "tinypool";
import { MAX_RESULT_BYTES, notJsonMessage, resultFault } from "../core/execution/result-size.js";
import type { Logger } from "../core/logger.js";
import { type OwnerMemory, type OwnerMessages, type Skill, SkillError } from "../core/skills/skill.js";
import { skillsOfModule } from "./skill-modules.js";
import {
  type CrossedError,
  type DownMessage,
  downChannelName,
  type LogLevel,
  type OwnerTarget,
  type SkillTask,
  type TaskResult,
  type UpMessage,
  upChannelName,
  type WorkerSetup,
} from "./worker-messages.js";

/**
 * A skill worker: the entry file of the pool's threads (compiled to
 * `dist/src/isolation/skill-worker.js`). It loads the skill modules once, then runs one
 * skill at a time for the main thread, which owns the timeout and may terminate it.
 */

const setup = Tinypool.workerData as WorkerSetup;
const up = new BroadcastChannel(upChannelName(setup.channelName));
const down = new BroadcastChannel(downChannelName(setup.channelName));
up.unref();
down.unref();

const skills = new Map<string, Skill>();
for (const url of setup.skillModules) {
  for (const skill of skillsOfModule((await import(url)) as Record<string, unknown>))
    skills.set(skill.id, skill);
}

// Heavy libraries load now, while the worker is idle, not in its first run.
for (const skill of skills.values()) skill.warm?.().catch(() => {});

/** The runs in this worker, by execution id: how to abort each, and what it relayed. */
const running = new Map<string, { controller: AbortController; relayed: number }>();
/** Owner-data calls waiting for the main thread's reply, by call id. */
const pendingCalls = new Map<string, { resolve(value: unknown): void; reject(err: Error): void }>();
let callSequence = 0;

down.onmessage = (event) => {
  const message = (event as { data: DownMessage }).data;
  if (message.type === "abort") {
    running.get(message.executionId)?.controller.abort(message.reason);
    return;
  }
  const pending = pendingCalls.get(message.callId);
  if (!pending) return; // another worker's call
  pendingCalls.delete(message.callId);
  if (message.ok) pending.resolve(message.value);
  else pending.reject(new Error(message.message));
};

function post(message: UpMessage): void {
  up.postMessage(message);
  const run = running.get(message.executionId);
  if (run) run.relayed++;
}

export default async function runTask(task: SkillTask): Promise<TaskResult> {
  const skill = skills.get(task.skillId);
  if (!skill) {
    const error = crossed(new Error(`skill ${task.skillId} is not loaded in the worker`));
    return { ok: false, error, relayed: 0 };
  }
  const run = { controller: new AbortController(), relayed: 0 };
  running.set(task.executionId, run);
  try {
    const value = await skill.run(task.params, {
      signal: run.controller.signal,
      executionId: task.executionId,
      owner: task.owner,
      config: task.config,
      logger: workerLogger(task.executionId, {}),
      progress: (update) => post({ type: "progress", executionId: task.executionId, update }),
      ...ownerCalls(task.executionId),
    });
    // A function or a symbol would not even cross to the main thread (a DataCloneError, a
    // raw crash of the task): refuse any value JSON cannot carry here, with the words and
    // the log line the main thread gives a light skill's (`runSkill`).
    const fault = resultFault(value, MAX_RESULT_BYTES);
    if (fault?.kind === "not_json") {
      const { path, found } = fault;
      workerLogger(task.executionId, {}).error({ path, found }, "skill returned a value JSON cannot carry");
      const message = notJsonMessage(skill.id, fault);
      return { ok: false, error: { kind: "skill", name: "SkillError", message }, relayed: run.relayed };
    }
    return { ok: true, value, relayed: run.relayed };
  } catch (err) {
    return { ok: false, error: crossed(err), relayed: run.relayed };
  } finally {
    running.delete(task.executionId);
  }
}

/** A logger whose lines the main thread writes, with the execution's bindings. */
function workerLogger(executionId: string, bindings: Record<string, unknown>): Logger {
  const log = (level: LogLevel) => (obj: object, msg?: string) => {
    const merged = { ...bindings, ...obj };
    try {
      post({ type: "log", executionId, level, obj: merged, ...(msg !== undefined && { msg }) });
    } catch {
      // Not cloneable (a function, a socket): keep the line, drop the fields.
      post({ type: "log", executionId, level, obj: bindings, msg: `${msg ?? ""} (fields not loggable)` });
    }
  };
  return {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    child: (more) => workerLogger(executionId, { ...bindings, ...more }),
  };
}

/** The owner's messages and memory, each call answered by the main thread's store. */
function ownerCalls(executionId: string): { messages: OwnerMessages; memory: OwnerMemory } {
  // Each method answers with what its port declares: the main thread calls the real one.
  const call =
    <F>(target: OwnerTarget, method: string) =>
    (...args: unknown[]) =>
      new Promise((resolve, reject) => {
        const callId = `${threadId}:${++callSequence}`;
        pendingCalls.set(callId, { resolve, reject });
        post({ type: "call", executionId, callId, target, method, args });
      }) as F;
  return {
    messages: {
      send: call("messages", "send"),
      list: call("messages", "list"),
      has: call("messages", "has"),
    },
    memory: {
      get: call("memory", "get"),
      set: call("memory", "set"),
      delete: call("memory", "delete"),
      list: call("memory", "list"),
    },
  };
}

function crossed(err: unknown): CrossedError {
  if (err instanceof Error) {
    return {
      kind: err instanceof SkillError ? "skill" : "unexpected",
      name: err.name,
      message: err.message,
      ...(err.stack !== undefined && { stack: err.stack }),
    };
  }
  return { kind: "unexpected", name: "Error", message: String(err) };
}
