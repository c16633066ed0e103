// Where skillport's time goes under the bench load. Two runs of the execute (or
// BENCH_PROFILE_TARGET=discover, or =skill: GET /v1/skills/math.evaluate, the cost every
// authenticated route shares) load, each against a fresh server:
//  1. V8 CPU profile of the server over the measured window only (profile-hook.mjs),
//     summarised by cpuprofile-summary.mjs; written to bench/results/<target>.cpuprofile.
//  2. If strace is installed: the same load with the server under `strace -c` filtered
//     to fsync/fdatasync (seccomp-bpf, so other syscalls are not slowed), to count the
//     durable commits per request and the event-loop time they block.
// BENCH_DURATION (default 10), BENCH_WARMUP (default 2).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { summarise } from "./cpuprofile-summary.mjs";
import { fmt, load, settings, sleep, startSkillport } from "./lib.mjs";

const target = process.env.BENCH_PROFILE_TARGET ?? "execute";
const REQUESTS = {
  execute: {
    method: "POST",
    path: "/v1/execute",
    body: { skill_id: "math.evaluate", params: { expression: "2+3*4" } },
  },
  discover: { method: "POST", path: "/v1/discover", body: { query: "send a message to a channel" } },
  skill: { method: "GET", path: "/v1/skills/math.evaluate" },
};
const request = REQUESTS[target];
if (!request) throw new Error(`BENCH_PROFILE_TARGET: one of ${Object.keys(REQUESTS).join(", ")}`);
const results = fileURLToPath(new URL("./results/", import.meta.url));
mkdirSync(results, { recursive: true });

/** Starts a server, warms it up, runs `before` and `after` around the measured load. */
async function measure(options, { before = async () => {}, after = async () => {} } = {}) {
  const sp = await startSkillport(options);
  try {
    const opts = {
      url: sp.url(request.path),
      method: request.method,
      headers: sp.headers,
      ...(request.body && { body: JSON.stringify(request.body) }),
    };
    await fetch(opts.url, opts); // one-off costs (mathjs loads on first use)
    const warm = await load({ ...opts, duration: settings.warmup });
    await before(sp);
    const r = await load({ ...opts, duration: settings.duration });
    await after(sp);
    // Requests the server answered in its life: probe + warm-up + measured (in-flight ones at
    // the end of each load run are not counted by autocannon: up to 2 x connections more).
    return { ...r, answered_in_life: 1 + warm.ok_2xx + r.ok_2xx };
  } finally {
    await sp.close();
  }
}

const waitFor = async (child, text) => {
  while (!child.output.includes(text)) await sleep(20);
};

console.log(
  `profiling ${request.method} ${request.path}: ${settings.connections} connections, ${settings.duration} s; ` +
    `${settings.cores} cores shared with the load generator`,
);

// 1. CPU profile of the measured window.
const profileFile = join(results, `${target}.cpuprofile`);
const hook = fileURLToPath(new URL("./profile-hook.mjs", import.meta.url));
const profiled = await measure(
  { nodeArgs: ["--import", hook], env: { BENCH_PROFILE_OUT: profileFile } },
  {
    before: async ({ child, pid }) => {
      process.kill(pid, "SIGUSR2");
      await waitFor(child, "profile started");
    },
    after: async ({ child, pid }) => {
      process.kill(pid, "SIGUSR2");
      await waitFor(child, "profile written");
    },
  },
);
console.log(`with the profiler on: ${fmt(profiled.requests_per_s, 0)} req/s, p99 ${fmt(profiled.p99_ms)} ms`);
console.log(`${summarise(JSON.parse(readFileSync(profileFile, "utf8")), 25)}\n(profile: ${profileFile})`);

// 2. Durable commits (fsync) per request.
let hasStrace = true;
try {
  execFileSync("strace", ["-V"], { stdio: "ignore" });
} catch {
  hasStrace = false;
}
if (!hasStrace) {
  console.log("\nstrace not installed: fsync count skipped");
} else {
  const straceOut = join(results, `${target}.strace.txt`);
  // -f: every thread; -c -w: summary of wall time inside the calls (fsync waits, it barely
  // uses CPU); counts start-up and warm-up too, so requests over the whole life are used.
  const prefix = [
    "strace",
    "-f",
    "--seccomp-bpf",
    "-c",
    "-w",
    "-e",
    "trace=fsync,fdatasync",
    "-o",
    straceOut,
  ];
  const start = Date.now();
  const r = await measure({ prefix });
  const wallS = (Date.now() - start) / 1000;
  const text = readFileSync(straceOut, "utf8");
  console.log(`\nunder strace (fsync filter): ${fmt(r.requests_per_s, 0)} req/s, p99 ${fmt(r.p99_ms)} ms`);
  console.log(text.trim());
  // strace -c rows: % time, seconds, usecs/call, calls, [errors], syscall
  const rows = [...text.matchAll(/^\s*[\d.]+\s+([\d.]+)\s+\d+\s+(\d+)\s+(?:\d+\s+)?f(?:data)?sync\s*$/gm)];
  const calls = rows.reduce((n, m) => n + Number(m[2]), 0);
  const seconds = rows.reduce((n, m) => n + Number(m[1]), 0);
  console.log(
    `fsync+fdatasync: ${calls} calls, ${fmt(seconds, 2)} s inside them, over ~${fmt(wallS, 0)} s of server life ` +
      `in which it answered ~${r.answered_in_life} ${target} requests: ` +
      `${fmt(r.answered_in_life / Math.max(calls, 1), 1)} requests per fsync, ` +
      `${fmt((1000 * seconds) / Math.max(calls, 1), 3)} ms per fsync`,
  );
}
