import { requireScope } from "../access.js";
import { anySignal } from "../any-signal.js";
import type { AdminExecutionsQuery, ListExecutionsQuery } from "../api-schemas.js";
import type { Clock } from "../clock.js";
import { ServiceError } from "../errors.js";
import type { ApiKey } from "../keys/api-key.js";
import type { Store } from "../ports.js";
import type { SkillRegistry } from "../skills/registry.js";
import type { ProgressUpdate } from "../skills/skill.js";
import type { ExecutionEvent, ExecutionEvents } from "./events.js";
import { type ExecutionFilters, pageOfExecutions } from "./execution-page.js";
import type { ExecutionRunner } from "./execution-runner.js";
import { markFinished, runningFor } from "./new-record.js";
import {
  type ExecutionRecord,
  type ExecutionStatus,
  isTerminal,
  recordAsOf,
  type StoredExecution,
} from "./record.js";
import { redactedExecution, withParamsKept } from "./redacted-execution.js";
import { cancelledOutcome } from "./run-skill.js";
import { saveOutcome } from "./save-outcome.js";
import type { SignalBridge } from "./signal-bridge.js";

/**
 * Another process sharing the store may finish an execution. Without a signal channel
 * this process hears of it only by reading the store, so waits re-read it this often.
 * With one, signals bring the news of async executions at once; the re-read still covers
 * sync ones (not signalled: their caller gets the record in the response) and lost signals.
 */
const STORE_POLL_MS = 1_000;

/**
 * How long a cancel waits for the process holding the execution to end it; after that
 * (the process died, or it cannot be reached) the cancellation is recorded from here.
 */
const REMOTE_CANCEL_WAIT_MS = 3_000;

/** How a long poll (`get` with a wait) may be ended early, and who hears the run meanwhile. */
export interface WaitOptions {
  signal?: AbortSignal;
  onProgress?: (update: ProgressUpdate) => void;
}

/**
 * Reading, waiting for, listing and cancelling executions: for the key's owner only, or
 * across every owner for the dashboard's administrator (`listAll`, `getAny`).
 */
export class ExecutionQueries {
  constructor(
    private readonly store: Store,
    private readonly registry: SkillRegistry,
    private readonly events: ExecutionEvents,
    private readonly runner: ExecutionRunner,
    private readonly clock: Clock,
    private readonly bridge?: SignalBridge,
  ) {}

  /**
   * The record; with `waitMs`, held until it is terminal or the wait ends (long poll);
   * `Infinity` waits for the end (or `signal`). `onProgress` hears the run's progress
   * while the wait lasts (an MCP poll relays it to its caller).
   */
  async get(key: ApiKey, id: string, waitMs = 0, options: WaitOptions = {}): Promise<ExecutionRecord> {
    const execution = await this.find(key, id);
    if (waitMs <= 0 || isTerminal(execution.record.status)) return this.asShown(execution.record);
    return this.asShown(await this.waitForTerminal(execution, waitMs, options));
  }

  async list(
    key: ApiKey,
    query: ListExecutionsQuery,
  ): Promise<{ data: ExecutionRecord[]; next_cursor: string | null }> {
    requireScope(key, "full-access");
    return this.page({ owner: key.owner, status: query.status, skillId: query.skill_id }, query);
  }

  /**
   * Every owner's records, newest first, filtered by key, owner, skill and status (the
   * dashboard), without credentials (`redactedExecution`), whether they ended or not.
   */
  async listAll(
    query: AdminExecutionsQuery,
  ): Promise<{ data: StoredExecution[]; next_cursor: string | null }> {
    const { data, next_cursor } = await pageOfExecutions(
      this.store.executions,
      { owner: query.owner, keyId: query.key_id, status: query.status, skillId: query.skill_id },
      query,
    );
    return { data: data.map((execution) => this.shownToAdmin(execution)), next_cursor };
  }

  /**
   * Any owner's execution with what is kept beside the record (params, key), for the
   * dashboard; without credentials (`redactedExecution`), whether it ended or not.
   */
  async getAny(id: string): Promise<StoredExecution> {
    const execution = await this.store.executions.get(id);
    if (!execution) throw executionNotFound(id);
    return this.shownToAdmin(execution);
  }

  /** What the dashboard shows of an execution: without credentials, its record as of now. */
  private shownToAdmin(execution: StoredExecution): StoredExecution {
    const redacted = redactedExecution(execution, this.registry);
    return { ...redacted, record: this.asShown(redacted.record) };
  }

  private async page(
    filters: ExecutionFilters,
    query: { limit: number; cursor?: string },
  ): Promise<{ data: ExecutionRecord[]; next_cursor: string | null }> {
    const { data, next_cursor } = await pageOfExecutions(this.store.executions, filters, query);
    return { data: data.map((row) => this.asShown(row.record)), next_cursor };
  }

  /**
   * Cancels a non-terminal execution; a terminal one is `execution_not_cancellable`, and
   * so is one that ended some other way while the cancel reached it (it completed, failed
   * or timed out first): nothing was cancelled, and a 200 would say otherwise.
   */
  async cancel(key: ApiKey, id: string): Promise<ExecutionRecord> {
    const execution = await this.find(key, id);
    if (isTerminal(execution.record.status)) throw notCancellable(execution.record.status);
    const ended = await this.endByCancelling(execution);
    if (ended.status !== "cancelled") throw notCancellable(ended.status);
    return ended;
  }

  private async endByCancelling(execution: StoredExecution): Promise<ExecutionRecord> {
    const local = await this.runner.cancelLocal(execution.record.id);
    if (local) return local.record;
    if (this.bridge) {
      // Held by another process: ask it to cancel (it aborts the skill and records the outcome).
      await this.bridge.requestCancel(execution.record.id);
      const ended = await this.waitForTerminal(execution, REMOTE_CANCEL_WAIT_MS, {});
      if (isTerminal(ended.status)) return ended;
    }
    // Nobody answered (no channel, or the holder is gone): record the cancellation here.
    // A holder that is alive after all cannot overwrite it: terminal records never change.
    const now = this.clock.now();
    const cancelled = markFinished(
      withParamsKept(execution, this.registry),
      cancelledOutcome("The execution was cancelled.", runningFor(execution, now)),
      now,
      this.registry,
    );
    // The holder may have ended it first: what is stored is the answer. In an outage the
    // cancel is not recorded and the caller hears so (503): unlike a run's outcome, which
    // happened and is stored later (`UnsavedOutcomes`), a cancel is the caller's to repeat.
    return (await saveOutcome(this.store.executions, cancelled)).record;
  }

  /**
   * The execution's events: its current status first, then status and progress events as
   * they happen, ending after the terminal status (SSE `/events`).
   */
  async *subscribe(key: ApiKey, id: string, signal?: AbortSignal): AsyncGenerator<ExecutionEvent> {
    for await (const event of this.follow(await this.find(key, id), signal)) {
      yield event.type === "status" ? { ...event, record: this.asShown(event.record) } : event;
    }
  }

  /**
   * The record as readers see it now (`recordAsOf`): every surface shows records through
   * this (REST, MCP, the dashboard's `listAll`/`getAny`, and `ExecutionService`'s replay of
   * an idempotent request).
   */
  asShown(record: ExecutionRecord): ExecutionRecord {
    return recordAsOf(record, this.clock.now());
  }

  /**
   * The events of one execution until it is terminal or `signal` fires: its current status
   * first, then this process's events, and a store poll for what other processes do.
   */
  private async *follow(execution: StoredExecution, signal?: AbortSignal): AsyncGenerator<ExecutionEvent> {
    const id = execution.record.id;
    const pending: ExecutionEvent[] = [];
    let wake: (() => void) | undefined;
    const push = (event: ExecutionEvent) => {
      pending.push(event);
      wake?.();
    };
    const unsubscribe = this.events.subscribe(id, push);
    const poll = setInterval(() => {
      this.store.executions.get(id).then(
        (latest) => {
          if (latest && isTerminal(latest.record.status)) push({ type: "status", record: latest.record });
        },
        () => {},
      );
    }, STORE_POLL_MS);
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      // Re-read after subscribing so that no transition falls between the two.
      const current = (await this.store.executions.get(id)) ?? execution;
      yield { type: "status", record: current.record };
      if (isTerminal(current.record.status)) return;
      while (!signal?.aborted) {
        const event = pending.shift();
        if (!event) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        yield event;
        if (event.type === "status" && isTerminal(event.record.status)) return;
      }
    } finally {
      unsubscribe();
      clearInterval(poll);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private async find(key: ApiKey, id: string): Promise<StoredExecution> {
    requireScope(key, "full-access");
    const execution = await this.store.executions.get(id);
    // Another owner's record is indistinguishable from a missing one (contract.md).
    if (!execution || execution.owner !== key.owner) throw executionNotFound(id);
    return execution;
  }

  /** The record once `execution` ends, or as stored after `waitMs`; for any owner (the caller checked). */
  waitForEnd(execution: StoredExecution, waitMs: number): Promise<ExecutionRecord> {
    return this.waitForTerminal(execution, waitMs, {});
  }

  /** The latest status seen within `waitMs`, terminal as soon as it is (long poll). */
  private async waitForTerminal(
    execution: StoredExecution,
    waitMs: number,
    { signal, onProgress }: WaitOptions,
  ): Promise<ExecutionRecord> {
    const deadline = Number.isFinite(waitMs) ? AbortSignal.timeout(waitMs) : undefined;
    const waited = anySignal([signal, deadline].filter((s): s is AbortSignal => s !== undefined));
    let latest = execution.record;
    try {
      for await (const event of this.follow(execution, waited.signal)) {
        if (event.type === "status") {
          latest = event.record;
          continue;
        }
        const { type: _, execution_id: __, ...update } = event;
        onProgress?.(update);
      }
    } finally {
      waited.dispose();
    }
    // A wait that ran out answers with the record as stored now, whoever changed it.
    if (!isTerminal(latest.status)) latest = (await this.store.executions.get(latest.id))?.record ?? latest;
    return latest;
  }
}

/** The answer for an id no execution the reader may see has (another owner's looks missing too). */
function executionNotFound(id: string): ServiceError {
  return new ServiceError("execution_not_found", {
    message: `No execution has the id ${JSON.stringify(id)}.`,
  });
}

/**
 * The refusal of a cancel that found the execution ended, saying how: a client retrying a
 * cancel whose answer it lost learns from it whether the run ended cancelled after all.
 */
function notCancellable(status: ExecutionStatus): ServiceError {
  return new ServiceError("execution_not_cancellable", {
    message: `The execution has already ended (${status}); only a queued or running execution can be cancelled.`,
  });
}
