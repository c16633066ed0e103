// Process plumbing shared by run.mjs and frameworks.mjs: every server and every load
// generator is its own process, so the figures are not one event loop measuring itself.
import { execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const LOAD = fileURLToPath(new URL("./load.mjs", import.meta.url));
export const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The package's `bin` (the CLI bundle), or another build's CLI to compare (BENCH_CLI). */
export const CLI =
  process.env.BENCH_CLI ??
  join(ROOT, JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).bin.skillport);
/** So per-request log lines are not what gets measured (the bench setting). */
export const LOG_LEVEL = "warn";

/**
 * The real server on a fresh data dir with an enterprise key whose limits the bench
 * cannot reach. `prefix` runs it under another command (e.g. strace); `nodeArgs` go to node;
 * `env` goes to the server and to the CLI that creates the key (e.g. a PostgreSQL store);
 * `cli` is the build to run (another build's `dist/cli/cli.js` to compare two).
 */
export async function startSkillport({ nodeArgs = [], prefix = [], env = {}, cli = CLI } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "skillport-bench-"));
  let child;
  // Under a prefix (strace) the signal must reach node itself, so it shuts down
  // gracefully and the tracer sees it exit, instead of the tracer detaching from it.
  const serverPid = () =>
    prefix.length
      ? Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim())
      : child.pid;
  const stopServer = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const pid = serverPid();
    await stop(child, 15_000, () => process.kill(pid, "SIGTERM"));
  };
  const close = async () => {
    await stopServer();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const key = createBenchKey(dataDir, {}, env, cli);
    const port = await freePort();
    const command = [...prefix, process.execPath, ...nodeArgs, cli, "serve"];
    child = startProcess(command[0], command.slice(1), {
      SKILLPORT_PORT: String(port),
      SKILLPORT_HOST: "127.0.0.1",
      SKILLPORT_DATA_DIR: dataDir,
      SKILLPORT_LOG_LEVEL: LOG_LEVEL,
      ...env,
    });
    await waitReady(`http://127.0.0.1:${port}/readyz`, child);
    return {
      child,
      dataDir,
      url: (path) => `http://127.0.0.1:${port}${path}`,
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
      /** The node process (not the strace wrapping it), e.g. for SIGUSR2. */
      pid: serverPid(),
      /** Graceful stop (pending group commits are flushed); the data dir stays. */
      stop: stopServer,
      /** Stops and removes the data dir. */
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * An enterprise key on `dataDir` (or on the store `env` names) with its own limits, by
 * default ones a bench cannot reach: `{ id, secret, … }`.
 */
export function createBenchKey(
  dataDir,
  { name = "bench", perMinute = 100_000_000, perDay = 1_000_000_000 } = {},
  env = {},
  cli = CLI,
) {
  const limits = ["--plan", "enterprise", "--limit-minute", String(perMinute), "--limit-day", String(perDay)];
  const args = [
    "keys",
    "create",
    "--name",
    name,
    "--scope",
    "full-access",
    ...limits,
    "--json",
    "--data-dir",
    dataDir,
  ];
  return JSON.parse(
    execFileSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, ...env } }),
  );
}

/** A port that was free a moment ago (the server binds it next). */
export async function freePort() {
  const s = createServer().listen(0, "127.0.0.1");
  await once(s, "listening");
  const { port } = s.address();
  s.close();
  return port;
}

/** Spawns `node file args` and keeps its output for error reports. */
export function startNode(file, args = [], env = {}, nodeArgs = []) {
  return startProcess(process.execPath, [...nodeArgs, file, ...args], env);
}

export function startProcess(command, args, env = {}) {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.output = "";
  child.on("error", (err) => (child.output += `\n${err.message}`)); // e.g. command not found
  child.stdout.on("data", (d) => (child.output += d));
  child.stderr.on("data", (d) => (child.output += d));
  return child;
}

/** Waits for the `{"listening":PORT}` line the tiny servers print. */
export async function listeningPort(child, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = /\{"listening":(\d+)\}/.exec(child.output);
    if (m) return Number(m[1]);
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`server did not start:\n${child.output}`);
}

/**
 * The floor server (floor-server.mjs: the least any durable execute does) started on a free
 * port: its process, its execute URL and the Authorization header of its one key.
 */
export async function startFloor() {
  const child = startNode(fileURLToPath(new URL("./floor-server.mjs", import.meta.url)));
  try {
    const port = await listeningPort(child);
    const key = /\{"key":"([^"]+)"\}/.exec(child.output)[1];
    return { child, url: `http://127.0.0.1:${port}/v1/execute`, authorization: `Bearer ${key}` };
  } catch (err) {
    await stop(child);
    throw err;
  }
}

/** Polls `url` until it answers 200 (skillport's /readyz). */
export async function waitReady(url, child, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} not ready:\n${child.output}`);
}

/** SIGTERM (or `terminate()`), then SIGKILL if it has not exited in `graceMs`. */
export async function stop(child, graceMs = 15_000, terminate = () => child.kill("SIGTERM")) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  terminate();
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Runs one load generator process and returns its JSON summary. */
export function load(options) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [LOAD, JSON.stringify(options)],
      { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`load generator failed: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Settings from the environment, shared by both scripts. */
export const settings = {
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  pipelining: 1,
  cores: availableParallelism(),
};

/** CPU ticks: the whole machine's busy and total (/proc/stat), and those of `pids` plus this process and its reaped children. */
function cpuTicks(pids) {
  const [, ...f] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  const ours = ["self", ...pids].reduce((sum, pid) => {
    try {
      const fields = procStat(pid);
      return sum + fields[11] + fields[12] + fields[13] + fields[14]; // utime stime cutime cstime
    } catch {
      return sum; // exited
    }
  }, 0);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait, ours };
}

/**
 * Starts measuring how much CPU went to OTHER work (processes that are not the bench, its servers or
 * its load generators, and time the hypervisor stole): on 2 shared cores, that is what makes one run
 * differ from the next.
 * Returns a function giving that share in % of the machine (Linux only; null elsewhere).
 */
export function otherCpu(pids) {
  let start;
  try {
    start = cpuTicks(pids);
  } catch {
    return () => null;
  }
  return () => {
    const end = cpuTicks(pids);
    const total = end.total - start.total;
    const other = end.busy - start.busy - (end.ours - start.ours);
    return total > 0 ? Math.max(0, Math.round((1000 * other) / total) / 10) : null;
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The numeric fields of /proc/<pid>/stat after the command name: utime is [11], stime [12]. */
function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
}

/** User + system CPU seconds of a process so far, all its threads (Linux only). */
export function cpuSeconds(pid) {
  const fields = procStat(pid);
  return (fields[11] + fields[12]) / TICKS_PER_SECOND;
}

/** Fixed-width table for the terminal. */
export function table(header, rows) {
  const cells = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(cells[0]), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join(
    "\n",
  );
}

export const fmt = (x, digits = 2) => (x === null || x === undefined ? "-" : x.toFixed(digits));
