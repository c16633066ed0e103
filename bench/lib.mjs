// Process plumbing shared by run.mjs and frameworks.mjs: every server and every load
// generator is its own process, so the figures are not one event loop measuring itself.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

const LOAD = fileURLToPath(new URL("./load.mjs", import.meta.url));

/** A port that was free a moment ago (the server binds it next). */
export async function freePort() {
  const s = createServer().listen(0, "127.0.0.1");
  await once(s, "listening");
  const { port } = s.address();
  s.close();
  return port;
}

/** Spawns `node file args` and keeps its stderr for error reports. */
export function startNode(file, args = [], env = {}, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.output = "";
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

/** SIGTERM, then SIGKILL if it has not exited in `graceMs`. */
export async function stop(child, graceMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Runs one load generator process and returns its JSON summary. */
export function load(options) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [LOAD, JSON.stringify(options)], { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`load generator failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
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

/** Fixed-width table for the terminal. */
export function table(header, rows) {
  const cells = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(cells[0]), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export const fmt = (x, digits = 2) => (x === null || x === undefined ? "-" : x.toFixed(digits));
