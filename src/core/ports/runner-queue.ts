// The shared queue (DESIGN.md's Queue port): which runner runs which execution, across processes.

import type { StoredExecution } from "../execution/record.js";

/**
 * The runners sharing a store and the executions each holds: presence (heartbeats), the
 * hand-over of a gone runner's executions and of a busy runner's backlog, and the guarded
 * start of a queued execution. Part of `ExecutionStore`, because each step is an atomic
 * update of a stored record.
 */
export interface RunnerQueue {
  /** Registers or refreshes a runner (a process that runs executions). */
  heartbeat(runner: RunnerInfo): Promise<void>;
  /**
   * The store's own clock (Unix ms), when processes on several machines share the store
   * (PostgreSQL): the one clock they all agree on, which heartbeats are written and
   * judged by (`StoreClock`), so that one host's fast or slow clock never makes a live
   * runner look gone, nor a dead one alive. Undefined when every process sharing the store
   * runs on one machine (SQLite: they read that machine's clock).
   */
  sharedClockMs(): Promise<number | undefined>;
  /** Removes a runner that stops cleanly. */
  retireRunner(runnerId: string): Promise<void>;
  /**
   * Removes the rows of runners that last beat before `heartbeatBefore` (Unix ms, the
   * shared clock's when there is one) and hold no unfinished execution: processes that
   * stopped without retiring (a crash, SIGKILL), whose rows would otherwise stay for ever.
   * One holding unfinished executions keeps its row until they are taken over, since a
   * runner without a row is judged gone at once. The number removed.
   */
  pruneRunners(heartbeatBefore: number): Promise<number>;
  /**
   * Non-terminal executions whose runner is gone (see `RunnerInfo`), reassigned to
   * `runnerId` in one atomic step so that two processes never both take one.
   */
  claimOrphans(
    runnerId: string,
    isRunnerGone: (runner: RunnerInfo | undefined) => boolean,
  ): Promise<ClaimedOrphan[]>;
  /**
   * The shared queue: takes up to `limit` executions that are still `queued`, were created
   * before `queuedBefore` and are held by another runner (alive or not: a busy runner's
   * backlog may be run by any runner with room), oldest first, and in one atomic step
   * stores each as `startRunning` makes it from the record as stored, reassigned to
   * `runnerId` (the caller marks it running and masks its params: a running record is
   * never run from its stored params), so that no two runners take the same one and no
   * running record holds credentials. Returns them as stored, with their params whole, as
   * the run needs them.
   */
  takeQueued(
    runnerId: string,
    limit: number,
    queuedBefore: string,
    startRunning: (taken: StoredExecution) => StoredExecution,
  ): Promise<StoredExecution[]>;
  /**
   * Saves `running` (the record the caller moved from `queued` to `running`, with its params
   * masked), every field, only if the stored record is still `queued` and held by
   * `running.runnerId`; true when it did. A runner calls it before running a queued
   * execution, so that an execution taken by another runner (`takeQueued`,
   * `claimOrphans`) or cancelled meanwhile is not run as well; a refused start leaves the
   * stored record as it was, its params whole.
   */
  start(running: StoredExecution): Promise<boolean>;
}

/** An execution taken over from a gone runner (`claimOrphans`), now `runnerId`'s. */
export interface ClaimedOrphan extends StoredExecution {
  /** Unix milliseconds of the gone runner's last heartbeat; undefined when it left no row. */
  lastHeartbeatAt: number | undefined;
}

/** A process that runs executions, with what is needed to tell whether it is still alive. */
export interface RunnerInfo {
  id: string;
  /**
   * Where `pid` names a process: the hostname with the boot id and PID namespace
   * (`runnerHost`). Only a runner with the same `host` may judge another by its pid.
   */
  host: string;
  pid: number;
  /** Unix milliseconds of the last heartbeat. */
  heartbeatAt: number;
}
