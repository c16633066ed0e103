import type { LogLevel } from "../logger.js";
import type { ProgressUpdate } from "../skills/skill.js";
import type { ExecutionRecord } from "./record.js";
import { shownProgress } from "./skill-progress.js";

/** What happens to an execution while it runs (SSE events, MCP notifications, long polls). */
export type ExecutionEvent =
  | { type: "status"; record: ExecutionRecord }
  | ({ type: "progress"; execution_id: string } & ProgressUpdate);

/** The `progress` event of an execution, built from the update as callers are told it (`shownProgress`). */
export function progressEvent(executionId: string, update: ProgressUpdate): ExecutionEvent {
  return { type: "progress", execution_id: executionId, ...shownProgress(update) };
}

/**
 * A line the skill logged, told only to the caller that started the execution (a streamed
 * execute), as embedded MCP sends it only to its caller: never on the bus of events others follow.
 */
export interface ExecutionLogEvent {
  type: "log";
  execution_id: string;
  level: LogLevel;
  message: string | undefined;
  fields: object;
}

/** What a streamed execute sends: the execution's events and, to its caller, the skill's log lines. */
export type ExecuteStreamEvent = ExecutionEvent | ExecutionLogEvent;

type Listener = (event: ExecutionEvent) => void;

/**
 * An in-process bus of execution events, by execution id. Events this process emits with
 * `share` also go to `outbound` (set when the store has a signal channel, so that other
 * processes hear of them); events other processes shared arrive through `deliver`.
 */
export class ExecutionEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly everyListeners = new Set<Listener>();
  /** Where shared events go besides this process's listeners (see `SignalBridge`). */
  outbound: ((executionId: string, event: ExecutionEvent) => void) | undefined;

  /** Every execution's events (`/metrics` counts them). */
  subscribeAll(listener: Listener): () => void {
    this.everyListeners.add(listener);
    return () => this.everyListeners.delete(listener);
  }

  subscribe(executionId: string, listener: Listener): () => void {
    let set = this.listeners.get(executionId);
    if (!set) {
      set = new Set();
      this.listeners.set(executionId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(executionId);
    };
  }

  /** An event of an execution this process runs; `share` tells other processes too. */
  emit(executionId: string, event: ExecutionEvent, { share = false } = {}): void {
    for (const listener of this.everyListeners) listener(event);
    this.deliver(executionId, event);
    if (share) this.outbound?.(executionId, event);
  }

  /**
   * An event of an execution another process runs: only this execution's listeners get
   * it (process-wide listeners such as metrics count what this process does).
   */
  deliver(executionId: string, event: ExecutionEvent): void {
    const set = this.listeners.get(executionId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }

  /** True when someone in this process follows the execution. */
  isFollowed(executionId: string): boolean {
    return this.listeners.has(executionId);
  }
}
