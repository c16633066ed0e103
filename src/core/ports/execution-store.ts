// The execution records: every run's stored state, listed and pruned.

import type { ExecutionStatus, StoredExecution } from "../execution/record.js";
import type { RunnerQueue } from "./runner-queue.js";

export interface ExecutionListQuery {
  /** Only this owner's records; every owner's when absent (the dashboard's administrator view). */
  owner?: string;
  /** Only records started with this key. */
  keyId?: string;
  status?: ExecutionStatus;
  skillId?: string;
  limit: number;
  /** Continue after the record with this id: newest first, so with the ids below it. */
  after?: string;
  /** Start at the record with this id, included: the ids at or below it. */
  startAt?: string;
}

/** The size of an execution's result, as `listResultSizes` reads it. */
export interface ExecutionResultSize {
  id: string;
  /** Bytes of the result's JSON (UTF-8) as stored; 0 for a record without a result. */
  resultBytes: number;
}

/** The records, with the queue over them (`RunnerQueue`): one adapter object serves both. */
export interface ExecutionStore extends RunnerQueue {
  /**
   * Inserts or replaces an execution. Resolves once the write is committed (durable), so a
   * response sent afterwards never describes a record that a crash could lose. Adapters
   * may group concurrent saves into one commit. A terminal record is never replaced
   * (contract.md: it never changes again); such a save succeeds without effect, and
   * resolves false (the record stored is not the one given: read it). True otherwise.
   */
  save(execution: StoredExecution): Promise<boolean>;
  get(id: string): Promise<StoredExecution | undefined>;
  /**
   * Newest first, which is descending id order: an execution's id begins with its
   * `created_at` (see `newRecord`), so no adapter needs an index of the times.
   */
  list(query: ExecutionListQuery): Promise<StoredExecution[]>;
  /**
   * The ids and result sizes of the records `list` would return for `query`, without
   * reading the results themselves: a listing bounds its page in bytes with these before
   * it reads any large result (see `pageOfExecutions`).
   */
  listResultSizes(query: ExecutionListQuery): Promise<ExecutionResultSize[]>;
  /** Deletes terminal records finished before `finishedBefore`; returns how many. */
  deleteFinishedBefore(finishedBefore: string): Promise<number>;
}
