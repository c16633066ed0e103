import type { ProgressUpdate } from "../skills/skill.js";
import type { ExecutionRecord } from "./record.js";

/** What happens to an execution while it runs (SSE events, MCP notifications, long polls). */
export type ExecutionEvent =
  | { type: "status"; record: ExecutionRecord }
  | ({ type: "progress"; execution_id: string } & ProgressUpdate);

type Listener = (event: ExecutionEvent) => void;

/** An in-process bus of execution events, by execution id. */
export class ExecutionEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly everyListeners = new Set<Listener>();

  /** Every execution's events (metrics, usage aggregation). */
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

  emit(executionId: string, event: ExecutionEvent): void {
    for (const listener of this.everyListeners) listener(event);
    const set = this.listeners.get(executionId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }
}
