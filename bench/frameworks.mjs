// Framework choice by measurement: the same tiny JSON POST endpoint (parse the body,
// check one field, answer JSON) on bare node:http, Fastify and Hono, each in its own
// process, loaded one at a time by the same separate autocannon process and settings.
// Rounds alternate the order so drift on a shared machine does not favour one server.
// The table shows each server's best round: other work on the 2 shared cores only ever
// takes throughput away, so the best round is the least disturbed one (the "other work"
// column says how disturbed it still was). BENCH_ROUNDS (default 3), BENCH_DURATION, BENCH_WARMUP.
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fmt, listeningPort, load, otherCpu, settings, startNode, stop, table } from "./lib.mjs";

const SERVERS = ["bare", "fastify", "hono"];
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const body = JSON.stringify({ skill_id: "math.evaluate", params: { expression: "2+3*4" } });
const runs = Object.fromEntries(SERVERS.map((s) => [s, []]));

console.log(
  `framework comparison: ${settings.connections} connections, pipelining 1, ${settings.warmup} s warm-up + ` +
    `${settings.duration} s per server, ${rounds} round(s); node ${process.version}; ` +
    `${settings.cores} CPU cores SHARED by the server and the load generator.`,
);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? SERVERS : [...SERVERS].reverse();
  for (const name of order) {
    const child = startNode(fileURLToPath(new URL(`./frameworks/${name}.mjs`, import.meta.url)));
    try {
      const port = await listeningPort(child);
      const opts = {
        url: `http://127.0.0.1:${port}/`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        connections: settings.connections,
      };
      await load({ ...opts, duration: settings.warmup });
      const others = otherCpu([child.pid]);
      const r = await load({ ...opts, duration: settings.duration });
      r.other_processes_cpu_pct = others();
      if (r.non_2xx || r.errors || r.timeouts) throw new Error(`${name}: ${JSON.stringify(r)}`);
      runs[name].push(r);
      console.log(
        `  round ${round + 1} ${name}: ${fmt(r.requests_per_s, 0)} req/s, p99 ${fmt(r.p99_ms)} ms ` +
          `(other work: ${fmt(r.other_processes_cpu_pct, 1)}% of the CPU)`,
      );
    } finally {
      await stop(child);
    }
  }
}

const best = (rs) => rs.reduce((a, b) => (b.requests_per_s > a.requests_per_s ? b : a));
const summary = Object.fromEntries(SERVERS.map((s) => [s, best(runs[s])]));
const bare = summary.bare.requests_per_s;
console.log(
  `\n${table(
    ["server (best round)", "req/s", "p50 ms", "p99 ms", "vs bare", "other work", "req/s all rounds"],
    SERVERS.map((s) => [
      s,
      fmt(summary[s].requests_per_s, 0),
      fmt(summary[s].p50_ms),
      fmt(summary[s].p99_ms),
      `${fmt((100 * summary[s].requests_per_s) / bare, 1)}%`,
      `${fmt(summary[s].other_processes_cpu_pct, 1)}%`,
      runs[s].map((r) => fmt(r.requests_per_s, 0)).join(" "),
    ]),
  )}`,
);
const dir = fileURLToPath(new URL("./results/", import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(
  `${dir}frameworks.json`,
  `${JSON.stringify({ at: new Date().toISOString(), node: process.version, settings, rounds, runs, summary }, null, 2)}\n`,
);
console.log("results written to bench/results/frameworks.json");
