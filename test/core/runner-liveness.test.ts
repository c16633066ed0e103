import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { isRunnerGone } from "../../src/core/execution/execution-runner.js";
import type { RunnerInfo } from "../../src/core/ports.js";

const NOW = Date.UTC(2026, 10, 22, 12);
const STALE_MS = 1_500; // six beats of 250 ms
const silentFor = (ms: number, runner: Omit<RunnerInfo, "heartbeatAt">): RunnerInfo => ({
  ...runner,
  heartbeatAt: NOW - ms,
});
const gone = (runner: RunnerInfo | undefined) => isRunnerGone(runner, "runner_me", NOW, STALE_MS);

/** A process of this host that has exited: its pid names no process (for a while). */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  await once(child, "exit");
  if (child.pid === undefined) throw new Error("no pid");
  return child.pid;
}

// Which runners' executions another runner may take over (ends them `execution_interrupted`
// when they were running): never those of a process that is merely stalled.
describe("runner liveness", () => {
  const here = hostname();

  it("on another host: gone once silent for longer than the stale period", () => {
    const remote = { id: "runner_remote", host: `${here}-other`, pid: process.ppid };
    expect(gone(silentFor(STALE_MS - 1, remote))).toBe(false);
    expect(gone(silentFor(STALE_MS + 1, remote))).toBe(true);
  });

  it("on this host: a live process that stalled past the stale period is not gone; it is after a far longer silence", () => {
    // The test's parent process: alive, and not this process.
    const stalled = { id: "runner_stalled", host: here, pid: process.ppid };
    expect(gone(silentFor(STALE_MS * 5, stalled))).toBe(false);
    expect(gone(silentFor(STALE_MS * 21, stalled))).toBe(true);
  });

  it("on this host: gone at once when its process no longer exists, or it has this process's pid", async () => {
    expect(gone(silentFor(0, { id: "runner_dead", host: here, pid: await exitedPid() }))).toBe(true);
    expect(gone(silentFor(0, { id: "runner_earlier", host: here, pid: process.pid }))).toBe(true);
  });

  it.skipIf(process.platform !== "linux")(
    "on this host: gone at once when its process was killed but not yet reaped by its parent (a zombie)",
    async () => {
      // `sleep 0` is left a child of `sleep 5`, which never reaps it.
      const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 5"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      try {
        const [line] = (await once(parent.stdout, "data")) as [Buffer];
        const zombie = Number(line.toString().trim());
        for (let tries = 0; !/\)\s+Z/.test(readFileSync(`/proc/${zombie}/stat`, "utf8")); tries++) {
          if (tries > 100) throw new Error(`${zombie} never became a zombie`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(gone(silentFor(0, { id: "runner_zombie", host: here, pid: zombie }))).toBe(true);
      } finally {
        parent.kill("SIGKILL");
      }
    },
  );

  it("a runner without a row is gone; this runner never is", () => {
    expect(gone(undefined)).toBe(true);
    const me = { id: "runner_me", host: here, pid: process.pid };
    expect(gone(silentFor(STALE_MS * 100, me))).toBe(false);
  });
});
