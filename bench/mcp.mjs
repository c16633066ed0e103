// `npm run bench` (MCP part): tools/call round trips over stdio, skillport's `skillport mcp`
// (auth, limits, an execution record committed per call) against a bare SDK server whose
// only tool does the same arithmetic, in the same run, and the same server as a floor
// (each call made durable by floor-execute.mjs: the least any durable call does); and the
// time from spawning `skillport mcp` to the answer of its first tools/list.
//
// Targets (issue 3): calls/s >= 80% of the bare server's; start-up to the first tools/list
// under 500 ms. Settings: BENCH_DURATION (s), BENCH_WARMUP (s), BENCH_MCP_CONCURRENCY
// (calls in flight for the throughput figure, default 16; round trips one at a time are
// measured too).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, createBenchKey, fmt, LOG_LEVEL, settings, table } from "./lib.mjs";

const TARGET_RATIO = 0.8;
const TARGET_STARTUP_MS = 500;
const STARTUP_RUNS = 7;
const concurrency = Number(process.env.BENCH_MCP_CONCURRENCY ?? 16);
const ARGS = { expression: "2+3*4" };

/** Runs the MCP benchmark; returns its report (and problems found on the way). */
export async function benchMcp() {
  const problems = [];
  const dataDir = mkdtempSync(join(tmpdir(), "skillport-bench-mcp-"));
  try {
    const { secret } = createBenchKey(dataDir);
    const env = { SKILLPORT_API_KEY: secret, SKILLPORT_DATA_DIR: dataDir, SKILLPORT_LOG_LEVEL: LOG_LEVEL };
    const servers = {
      "bare SDK server": {
        command: process.execPath,
        args: [fileURLToPath(new URL("./mcp-bare-server.mjs", import.meta.url))],
      },
      "floor SDK server": {
        command: process.execPath,
        args: [fileURLToPath(new URL("./mcp-bare-server.mjs", import.meta.url))],
        env: { BENCH_MCP_FLOOR: "1" },
      },
      "skillport mcp": { command: process.execPath, args: [CLI, "mcp"], env },
    };
    const results = {};
    for (const [name, spec] of Object.entries(servers)) {
      const client = await connect(spec);
      try {
        const probe = await client.callTool({ name: "math_evaluate", arguments: ARGS });
        if (probe.structuredContent?.value !== 14) problems.push(`${name} answered ${JSON.stringify(probe)}`);
        await measure(client, 1, settings.warmup);
        results[`${name}, 1 in flight`] = await measure(client, 1, settings.duration / 2);
        await measure(client, concurrency, settings.warmup);
        results[`${name}, ${concurrency} in flight`] = await measure(client, concurrency, settings.duration);
      } finally {
        await client.close();
      }
      for (const r of Object.values(results))
        if (r.errors > 0) problems.push(`${name}: ${r.errors} failed calls`);
    }
    const startup = await measureStartup({ command: process.execPath, args: [CLI, "mcp"], env });

    const bare = results[`bare SDK server, ${concurrency} in flight`];
    const ours = results[`skillport mcp, ${concurrency} in flight`];
    const ratio = ours.calls_per_s / bare.calls_per_s;
    const floorRatio = results[`floor SDK server, ${concurrency} in flight`].calls_per_s / bare.calls_per_s;
    const sequentialRatio =
      results["skillport mcp, 1 in flight"].calls_per_s / results["bare SDK server, 1 in flight"].calls_per_s;
    const pass = { ratio: ratio >= TARGET_RATIO, startup: startup.median_ms < TARGET_STARTUP_MS };
    console.log(
      `\nMCP over stdio: tools/call math_evaluate, ${settings.warmup} s warm-up + ${settings.duration} s (${settings.duration / 2} s one at a time); ` +
        `node ${process.version}; ${settings.cores} cores shared by client and server\n`,
    );
    console.log(
      table(
        ["server, calls in flight", "calls/s", "p50 ms", "p99 ms", "max ms", "calls", "errors"],
        Object.entries(results).map(([name, r]) => [
          name,
          fmt(r.calls_per_s, 0),
          fmt(r.p50_ms, 3),
          fmt(r.p99_ms, 3),
          fmt(r.max_ms, 3),
          r.calls,
          r.errors,
        ]),
      ),
    );
    console.log(
      `\nskillport/bare (${concurrency} in flight) = ${fmt(ratio, 3)}   target >= ${TARGET_RATIO}   ${pass.ratio ? "PASS" : "FAIL"}`,
    );
    console.log(
      `skillport/bare (1 in flight)  = ${fmt(sequentialRatio, 3)}   (each call waits for its record's commit)`,
    );
    console.log(
      `floor/bare (${concurrency} in flight)     = ${fmt(floorRatio, 3)}   (the least a durable call does: floor-execute.mjs)`,
    );
    console.log(
      `spawn -> first tools/list answered: median ${fmt(startup.median_ms, 0)} ms, max ${fmt(startup.max_ms, 0)} ms over ${STARTUP_RUNS} runs   ` +
        `target < ${TARGET_STARTUP_MS} ms   ${pass.startup ? "PASS" : "FAIL"}`,
    );
    return {
      results,
      ratio,
      sequential_ratio: sequentialRatio,
      floor_ratio: floorRatio,
      startup,
      pass,
      problems,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function connect({ command, args, env = {} }) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: "inherit" }),
  );
  return client;
}

/** `inFlight` callers each calling in a loop for `seconds`: calls/s and latency percentiles. */
async function measure(client, inFlight, seconds) {
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const result = await client.callTool({ name: "math_evaluate", arguments: ARGS });
          if (result.isError) errors++;
          else latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? null;
  return {
    calls: latencies.length,
    errors,
    calls_per_s: latencies.length / elapsed,
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    max_ms: latencies.at(-1) ?? null,
  };
}

/** Spawn to first tools/list answer, as an assistant starting skillport experiences it. */
async function measureStartup(spec) {
  const times = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const t0 = performance.now();
    const client = await connect(spec);
    const { tools } = await client.listTools();
    times.push(performance.now() - t0);
    if (tools.length === 0) throw new Error("tools/list answered no tools");
    await client.close();
  }
  times.sort((a, b) => a - b);
  return { median_ms: times[Math.floor(times.length / 2)], max_ms: times.at(-1), runs_ms: times };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await benchMcp();
  for (const p of report.problems) console.error(`CORRECTNESS: ${p}`);
  if (report.problems.length > 0) process.exitCode = 1;
}
