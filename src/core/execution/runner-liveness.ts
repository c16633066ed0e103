import { readFileSync } from "node:fs";
import type { RunnerInfo } from "../ports.js";

/**
 * How much longer than `staleMs` a runner whose process still exists in this PID namespace
 * may stay silent: it is stalled (a CPU-starved machine, a long garbage collection), not
 * dead, and its executions are still running there. Past this, its pid likely belongs to
 * another process now.
 */
const LIVE_PROCESS_SILENCE_FACTOR = 20;

/** The runner that judges whether another is gone. */
export interface RunnerJudge {
  id: string;
  /** Its `processHost()`: only a runner with the very same one is judged by its pid. */
  host: string;
  pid: number;
  /**
   * Since when (Unix ms) its own heartbeats have landed without a break: silence before
   * then proves nothing, as the store may have been out of reach for every runner.
   */
  watchingSinceMs: number;
}

/**
 * A runner is gone when it never registered or retired; when it runs where its pid means
 * the same as ours (same `host`, see `runnerHost`), when its process no longer exists (so
 * a restart after SIGKILL recovers at once) or stayed silent far longer than `staleMs`;
 * anywhere else, when it stayed silent longer than `staleMs`. Silence counts only while
 * the judge's own heartbeats land (`watchingSinceMs`). A container restarted with a
 * new PID namespace is such an "anywhere else": what its previous incarnation was running
 * is recovered once the new one has beaten for `staleMs`, not at once. That is the price of never taking its pid for
 * a peer's, which interrupted live replicas that shared a hostname.
 */
export function isRunnerGone(
  runner: RunnerInfo | undefined,
  judge: RunnerJudge,
  nowMs: number,
  staleMs: number,
): boolean {
  if (!runner) return true;
  if (runner.id === judge.id) return false;
  // Silent while the judge watched: a peer cut off from the store as long as the judge was
  // has had only the time since the judge's own beats resumed to beat again.
  const silentMs = nowMs - Math.max(runner.heartbeatAt, judge.watchingSinceMs);
  if (runner.host !== judge.host) return silentMs > staleMs;
  if (runner.pid === judge.pid) return true; // an earlier incarnation with our pid, in our namespace
  if (!processExists(runner.pid)) return true;
  return silentMs > staleMs * LIVE_PROCESS_SILENCE_FACTOR;
}

/**
 * How much longer than `staleMs` a runner's row stays once it is silent: twice the most a
 * live, stalled process is waited for (`LIVE_PROCESS_SILENCE_FACTOR`), so that no runner
 * that could still beat loses its row (without one, what it then stored would be judged a
 * gone runner's at once). With the default beat of 5 s, 20 minutes.
 */
const PRUNE_SILENCE_FACTOR = 2 * LIVE_PROCESS_SILENCE_FACTOR;

/**
 * The heartbeat before which a runner's row may be removed (`pruneRunners`), or undefined
 * while the judge has not watched that long: silence before `watchingSinceMs` proves
 * nothing (see `isRunnerGone`).
 */
export function runnerRowsPrunableBefore(
  judge: RunnerJudge,
  nowMs: number,
  staleMs: number,
): number | undefined {
  const cutoff = nowMs - staleMs * PRUNE_SILENCE_FACTOR;
  return judge.watchingSinceMs <= cutoff ? cutoff : undefined;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
  return !isZombie(pid);
}

/**
 * A killed process that its parent has not reaped yet still answers `kill(pid, 0)`; an
 * init that reaps late left a SIGKILLed server's running executions unrecovered for six
 * beats after its restart. Linux says so in /proc (state Z, or X); elsewhere, no answer.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces or ")": the state follows the last one.
    return /^\s*[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 1));
  } catch {
    return false;
  }
}
