// A runner's presence among the processes sharing the store, apart from the runs
// themselves: it proves it is alive (its heartbeat), takes over what dead runners left
// (orphans), and takes the queued work other runners left waiting (the shared queue). Kept
// apart from `ExecutionRunner` so that the runner reads as the life of a run; the rule of
// who may judge whom gone is `isRunnerGone`'s, and this decides when to look.

import { type Clock, isoTimestamp } from "../clock.js";
import type { Logger } from "../logger.js";
import type { StoreWatch } from "../outage-log.js";
import type { ClaimedOrphan, RunnerInfo, Store } from "../ports.js";
import type { SkillRegistry } from "../skills/registry.js";
import { markRunning } from "./new-record.js";
import { isTerminal, type StoredExecution } from "./record.js";
import { withParamsKept } from "./redacted-execution.js";
import { processHost } from "./runner-host.js";
import { isRunnerGone, type RunnerJudge, runnerRowsPrunableBefore } from "./runner-liveness.js";
import { StoreClock } from "./store-clock.js";

/** Orphans appear only when another process dies: looking every few beats is enough. */
const ORPHAN_SCAN_EVERY_BEATS = 6;
/** A runner silent for this many beats is gone (`isRunnerGone`). */
const SILENT_BEATS_BEFORE_GONE = 6;
/** How many ids of the executions taken over from stopped processes one log line names. */
const TAKEOVER_IDS_LOGGED = 20;

export interface RunnerPresenceOptions {
  runnerId: string;
  store: Store;
  clock: Clock;
  logger: Logger;
  registry: SkillRegistry;
  heartbeatMs: number;
  storeWatch?: StoreWatch;
}

/** What the runner does with the work its presence finds. */
export interface PresenceDuties {
  /**
   * Takes over an orphan claimed for this runner (queued, or running when its process
   * stopped at `cutOffAtMs`, to within a beat).
   */
  takeOver(orphan: ClaimedOrphan, cutOffAtMs: number): Promise<void>;
  /** Each beat, before taking waiting work: lets go of waiting work ended elsewhere. */
  beforeTaking(): Promise<void>;
  /** How many more executions could start here at once (0 once stopping). */
  room(): number;
  /** Runs an execution taken from the store's waiting ones (stored running, this runner's). */
  runTaken(execution: StoredExecution): void;
}

/** Heartbeat, takeovers and the shared queue of one runner (see the file's header). */
export class RunnerPresence {
  private timer: NodeJS.Timeout | undefined;
  /** Beats failed in a row: the first is logged at error, the next at debug (`noteFailedBeat`). */
  private failedBeats = 0;
  /**
   * Since when (Unix ms) this runner's heartbeats have landed without a break; undefined
   * before the first and after one failed. Others' silence counts only from then on (see
   * `isRunnerGone`).
   */
  private watchingSinceMs: number | undefined;
  /** When the last heartbeat landed; undefined after one failed. */
  private lastBeatMs: number | undefined;
  /** The beats under way (one that waits on a slow store may still run when the next begins). */
  private readonly beating = new Set<Promise<void>>();
  /**
   * What heartbeats are written and judged by (this runner's own beats, others' silence,
   * `watchingSinceMs`): the store's clock, which every host sharing it agrees on.
   */
  private readonly storeClock: StoreClock;

  constructor(private readonly options: RunnerPresenceOptions) {
    this.storeClock = new StoreClock(options.clock, options.store.executions, options.logger);
  }

  /** Registers this runner and takes over what dead ones left; then keeps doing so every beat. */
  async start(duties: PresenceDuties): Promise<void> {
    await this.beat();
    // Others are judged only from this runner's first beat on, so none of them is taken
    // over here; runners in this PID namespace are judged by their pids, at once (a restart
    // after SIGKILL recovers what it left as it starts). Why: a replica that cannot reach
    // the store fails to start and is restarted until it can, so it starts just as the
    // store comes back, before its live peers' first beats after the outage have landed.
    await this.recoverOrphans(duties);
    let beats = 0;
    this.timer = setInterval(() => {
      beats++;
      const beat = this.everyBeat(beats, duties)
        .then(
          () => {
            this.failedBeats = 0;
          },
          (err: unknown) => this.noteFailedBeat(err),
        )
        .finally(() => this.beating.delete(beat));
      this.beating.add(beat);
    }, this.options.heartbeatMs);
    this.timer.unref();
  }

  /**
   * Beats no more; resolves once the beats under way have ended: what they took over was
   * handed to the runner (which, stopping, leaves queued ones queued in the store) and
   * recorded before the runner goes on to stop.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all(this.beating);
  }

  /**
   * A failed beat is logged at error once, then at debug until a beat succeeds: it is
   * tried every beat (5 s) for as long as the store refuses it (an outage, a database file
   * lost), and an error line each time buried the one line that said what happened. The
   * store's recovery is logged by `StoreWatch` ("the store is back").
   */
  private noteFailedBeat(err: unknown): void {
    this.failedBeats++;
    if (this.failedBeats === 1) this.options.logger.error({ err }, "runner heartbeat failed");
    else this.options.logger.debug({ err, failed_beats: this.failedBeats }, "runner heartbeat failed again");
  }

  /**
   * Tells the store this runner is gone, so that peers need not wait for its silence. A
   * store out of reach must not turn a planned stop into a failed one: peers judge a runner
   * that was not retired by its pid or its silent heartbeat and take over alike.
   */
  async retire(): Promise<void> {
    await this.options.store.executions.retireRunner(this.options.runnerId).catch((err: unknown) => {
      this.options.logger.warn({ err }, "could not retire this runner in the store");
    });
  }

  private async everyBeat(beats: number, duties: PresenceDuties): Promise<void> {
    await this.beat();
    if (beats % ORPHAN_SCAN_EVERY_BEATS === 0) await this.recoverOrphans(duties);
    await duties.beforeTaking();
    await this.takeWaiting(duties);
  }

  private async beat(): Promise<void> {
    const { store, runnerId, heartbeatMs, storeWatch } = this.options;
    const clock = this.storeClock;
    try {
      // Measured each beat: a clock stepped (NTP) or drifting moves no heartbeat for long.
      await clock.sync();
      const info: RunnerInfo = {
        id: runnerId,
        host: processHost(),
        pid: process.pid,
        heartbeatAt: clock.now(),
      };
      await store.executions.heartbeat(info);
    } catch (err) {
      this.lastBeatMs = undefined;
      if (store.isOutage(err)) storeWatch?.failed();
      throw err;
    }
    storeWatch?.served();
    const nowMs = clock.now();
    // A break: the store was out of reach (a beat failed, or hung and landed late, as a
    // query does while the network drops its packets), or this process did not run. Peers
    // cut off as long as this runner could not beat either, so their silence says nothing
    // until they had a stale period to beat again (otherwise, after an outage of the store,
    // a replica's first beat would be its look for orphans, and it would take over its
    // live peers' running executions).
    if (this.lastBeatMs === undefined || nowMs - this.lastBeatMs > 2 * heartbeatMs) {
      this.watchingSinceMs = nowMs;
    }
    this.lastBeatMs = nowMs;
  }

  /**
   * Runs queued executions other runners left waiting over a beat (busy or gone), as many
   * as this runner has free slots for.
   */
  private async takeWaiting(duties: PresenceDuties): Promise<void> {
    const room = duties.room();
    if (room === 0) return;
    const { clock, store, registry, runnerId, heartbeatMs } = this.options;
    const now = clock.now();
    const taken = await store.executions.takeQueued(
      runnerId,
      room,
      isoTimestamp(now - heartbeatMs),
      // Stored running without its credentials; the run gets them whole (as `taken`).
      (execution) => markRunning(withParamsKept(execution, registry), now),
    );
    for (const execution of taken) duties.runTaken(execution);
  }

  /** Claims the executions of runners judged gone, and hands each unfinished one to `duties`. */
  private async recoverOrphans(duties: PresenceDuties): Promise<void> {
    const { store, runnerId, heartbeatMs, logger } = this.options;
    const clock = this.storeClock;
    const nowMs = clock.now();
    const judge: RunnerJudge = {
      id: runnerId,
      host: processHost(),
      pid: process.pid,
      watchingSinceMs: this.watchingSinceMs ?? nowMs,
    };
    // The runners judged gone, for the log line: a claimed orphan holds this runner's id now.
    const gone = new Map<string, RunnerInfo>();
    const orphans = await store.executions.claimOrphans(runnerId, (runner) => {
      const isGone = isRunnerGone(runner, judge, clock.now(), heartbeatMs * SILENT_BEATS_BEFORE_GONE);
      if (isGone && runner) gone.set(runner.id, runner);
      return isGone;
    });
    for (const orphan of orphans) {
      if (!isTerminal(orphan.record.status)) await duties.takeOver(orphan, this.cutOffAtMs(orphan));
    }
    if (orphans.length > 0) {
      logger.warn(
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
    await this.pruneStoppedRunners(judge, nowMs);
  }

  /**
   * Removes the rows that runners stopped without retiring left (a crash, SIGKILL) once
   * long silent and holding nothing: each would stay for ever.
   * Housekeeping: a failure is logged, and tried again at the next look for orphans.
   */
  private async pruneStoppedRunners(judge: RunnerJudge, nowMs: number): Promise<void> {
    const { store, heartbeatMs, logger } = this.options;
    const before = runnerRowsPrunableBefore(judge, nowMs, heartbeatMs * SILENT_BEATS_BEFORE_GONE);
    if (before === undefined) return;
    try {
      const count = await store.executions.pruneRunners(before);
      if (count > 0) {
        logger.info(
          { count, silent_since_before: isoTimestamp(before) },
          "removed the rows of stopped runners that left nothing unfinished",
        );
      }
    } catch (err) {
      logger.warn({ err }, "could not remove the rows of stopped runners");
    }
  }

  /**
   * When an orphan's process stopped, not now: the time since (a restart overnight, say) is
   * no part of its run. The last heartbeat bounds that moment, to within a beat.
   */
  private cutOffAtMs(orphan: ClaimedOrphan): number {
    const beat = orphan.lastHeartbeatAt;
    const now = this.storeClock.now();
    const endedAtMs = beat === undefined ? now : Math.min(now, beat + this.options.heartbeatMs);
    const startedAtMs = Date.parse(orphan.record.started_at ?? orphan.record.created_at);
    return Math.max(endedAtMs, startedAtMs);
  }
}
