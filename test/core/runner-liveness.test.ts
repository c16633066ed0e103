import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunnerGone, type RunnerJudge } from "../../src/core/execution/execution-runner.js";
import { processHost, runnerHost } from "../../src/core/execution/runner-host.js";
import type { RunnerInfo } from "../../src/core/ports.js";
import { makeExecution } from "../store/contract/fixtures.js";
import { runnerOnStore } from "./runner-on-store.js";

const NOW = Date.UTC(2026, 10, 22, 12);
const STALE_MS = 1_500; // six beats of 250 ms
const silentFor = (ms: number, runner: Omit<RunnerInfo, "heartbeatAt">): RunnerInfo => ({
  ...runner,
  heartbeatAt: NOW - ms,
});
const me: RunnerJudge = { id: "runner_me", host: processHost(), pid: process.pid };
const gone = (runner: RunnerInfo | undefined, judge = me) => isRunnerGone(runner, judge, NOW, STALE_MS);

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
  const here = processHost();

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
    expect(gone(silentFor(STALE_MS * 100, me))).toBe(false);
  });
});

// Containers given one `hostname:`, host networking, `hostNetwork` pods: one hostname, a PID
// namespace each, and identical containers get the same pid. Their live executions were
// taken over as an earlier incarnation's (audit 18, finding 1).
describe("runners that share a hostname", () => {
  const BOOT = "0b7c4a9e-5d2f-4e61-9a3b-2c8d1e6f7a40";
  const inContainer = (pidNamespace: string, bootId = BOOT) =>
    runnerHost({ hostname: "app", bootId, pidNamespace });
  const container: RunnerJudge = { id: "runner_me", host: inContainer("pid:[4026532201]"), pid: 1 };

  it("in another PID namespace: judged by heartbeats only, even with the judge's pid or a pid it does not see", async () => {
    const peer = { id: "runner_peer", host: inContainer("pid:[4026532305]"), pid: 1 };
    expect(gone(silentFor(0, peer), container)).toBe(false);
    expect(gone(silentFor(STALE_MS - 1, peer), container)).toBe(false);
    expect(gone(silentFor(0, { ...peer, pid: await exitedPid() }), container)).toBe(false);
    expect(gone(silentFor(STALE_MS + 1, peer), container)).toBe(true);
  });

  it("on another machine (another boot id): judged by heartbeats only, though both are in the initial PID namespace", async () => {
    const initial = "pid:[4026531836]"; // the same inode on every Linux machine
    const judge = { ...container, host: inContainer(initial) };
    const peer = {
      id: "runner_peer",
      host: inContainer(initial, "5e0d2b71-8c3a-4f19-b6e2-7a9c0d4e1f35"),
      pid: 1,
    };
    expect(gone(silentFor(0, peer), judge)).toBe(false);
    expect(gone(silentFor(0, { ...peer, pid: await exitedPid() }), judge)).toBe(false);
    expect(gone(silentFor(STALE_MS + 1, peer), judge)).toBe(true);
  });

  it("with exactly the judge's host: judged by its pid (the judge's own pid is an earlier incarnation)", () => {
    const earlier = { id: "runner_earlier", host: container.host, pid: 1 };
    expect(gone(silentFor(0, earlier), container)).toBe(true);
  });

  it("a host names the hostname first, then the boot id and PID namespace; the hostname alone without them", () => {
    expect(inContainer("pid:[4026532201]")).toBe(`app (boot ${BOOT}, pid:[4026532201])`);
    expect(runnerHost({ hostname: "mac" })).toBe("mac");
  });

  it.skipIf(!existsSync("/proc/self/ns/pid"))(
    "this process's host is its hostname with this kernel's boot id and its PID namespace",
    () => {
      expect(processHost()).toBe(
        runnerHost({
          hostname: hostname(),
          bootId: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
          pidNamespace: readlinkSync("/proc/self/ns/pid"),
        }),
      );
    },
  );

  // The audit's set-up for real: two replicas on one machine, with one hostname, each in a PID
  // namespace of its own where it is pid 1 (as two identical containers are).
  const canUnshare = spawnSync("unshare", [...UNSHARE, "true"]).status === 0;
  it.skipIf(!canUnshare)(
    "a replica starting in another PID namespace, with the same pid, leaves a live one's running execution alone",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "skillport-liveness-"));
      const holder = inNamespace(dir, "hold", "exec_held_by_a_live_peer");
      try {
        const [line] = (await once(holder.stdout, "data")) as [Buffer];
        expect(JSON.parse(line.toString())).toEqual({ pid: 1 });
        const judge = inNamespace(dir, "start");
        const [exitCode] = (await once(judge, "exit")) as [number];
        expect(exitCode).toBe(0);
        const { store } = runnerOnStore(dir);
        try {
          const held = await store.executions.get("exec_held_by_a_live_peer");
          expect(held?.record.status).toBe("running");
        } finally {
          await store.close();
        }
      } finally {
        holder.kill("SIGKILL");
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it("a runner records this process's host in its heartbeats", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skillport-liveness-"));
    const { store, runner } = runnerOnStore(dir);
    try {
      await runner.start();
      await store.executions.save(makeExecution({ status: "running", runnerId: runner.runnerId }));
      const seen: RunnerInfo[] = [];
      await store.executions.claimOrphans("runner_probe", (info) => {
        if (info) seen.push(info);
        return false;
      });
      expect(seen).toEqual([expect.objectContaining({ id: runner.runnerId, host: processHost() })]);
    } finally {
      await runner.stop(0);
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A user namespace, so that no privilege is needed, and a PID namespace in which the command is pid 1. */
const UNSHARE = ["--user", "--map-root-user", "--pid", "--fork"];

/** test/core/namespaced-runner.ts in a PID namespace of its own (see there for `args`). */
function inNamespace(dataDir: string, ...args: string[]) {
  const script = join(import.meta.dirname, "namespaced-runner.ts");
  return spawn("unshare", [...UNSHARE, process.execPath, "--import", "tsx", script, dataDir, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
}
