// CPU time each server spends per request: bare node:http, the floor of a durable execute
// (floor-server.mjs: what any implementation of the contract must do) and skillport's
// execute path, for comparing code changes on a machine whose other load varies: requests/s moves
// with whatever else runs, CPU time per request much less. Counts every thread of the
// server (the fsync thread pool and skill workers included), from /proc (Linux only).
// The ratio bare/skillport is what `npm run bench`'s requests/s ratio would be if each
// server had a core to itself and the load generator cost nothing.
// Usage: node bench/cpu-cost.mjs  (BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS apply;
// BENCH_ROUNDS, default 3: measurements per server, alternating, the median is kept).
// BENCH_COMPARE_CLI=<another build's dist/cli/cli.js> adds that build's execute, measured
// right after this one's in every round, and the medians of their per-round ratios of CPU
// per request and of requests/s (the second shows work moved off the event loop, to another
// thread, which the first counts as a cost): on a shared VM, a change of less than about
// 10 % needs many short rounds to show (say BENCH_ROUNDS=20 BENCH_DURATION=3).
import { fileURLToPath } from "node:url";
import {
  cpuSeconds,
  fmt,
  listeningPort,
  load,
  settings,
  startFloor,
  startNode,
  startSkillport,
  stop,
  table,
} from "./lib.mjs";

const EXECUTE_BODY = JSON.stringify({ skill_id: "math.evaluate", params: { expression: "2+3*4" } });
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function measure(name, pid, options) {
  const before = cpuSeconds(pid);
  const r = await load({ ...options, duration: settings.duration });
  const cpu = cpuSeconds(pid) - before;
  if (r.non_2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non_2xx} non-2xx, ${r.errors} errors`);
  return { name, usPerRequest: (cpu * 1e6) / r.ok_2xx, cpuShare: cpu / r.duration_s, rps: r.requests_per_s };
}

// Lexical discovery: the embedding model's one-off load (seconds of CPU on its own thread)
// would otherwise land in the first rounds; execute does not use it.
const LEXICAL = { SKILLPORT_DISCOVERY_MODE: "lexical" };
const COMPARE_CLI = process.env.BENCH_COMPARE_CLI;
const skillport = await startSkillport({ env: LEXICAL });
const other = COMPARE_CLI ? await startSkillport({ env: LEXICAL, cli: COMPARE_CLI }) : undefined;
const bare = startNode(fileURLToPath(new URL("./bare-server.mjs", import.meta.url)));
const floor = await startFloor();
try {
  const barePort = await listeningPort(bare);
  const targets = [
    { name: "bare node:http", pid: bare.pid, url: `http://127.0.0.1:${barePort}/` },
    {
      name: "floor execute",
      pid: floor.child.pid,
      url: floor.url,
      headers: { ...skillport.headers, authorization: floor.authorization },
    },
    { name: "skillport execute", pid: skillport.pid, url: skillport.url("/v1/execute") },
    ...(other
      ? [
          {
            name: "compared build execute",
            pid: other.pid,
            url: other.url("/v1/execute"),
            headers: other.headers,
          },
        ]
      : []),
  ].map((t) => ({
    ...t,
    options: { url: t.url, method: "POST", headers: t.headers ?? skillport.headers, body: EXECUTE_BODY },
  }));
  for (const t of targets) await load({ ...t.options, duration: settings.warmup });
  const runs = new Map(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) runs.get(t.name).push(await measure(t.name, t.pid, t.options));
  }
  const median = (xs) => [...xs].sort((a, b) => a.usPerRequest - b.usPerRequest)[Math.floor(xs.length / 2)];
  const rows = targets.map((t) => {
    const all = runs.get(t.name);
    const m = median(all);
    return [
      t.name,
      fmt(m.usPerRequest, 1),
      all.map((x) => fmt(x.usPerRequest, 1)).join(" "),
      fmt(m.cpuShare * 100, 0),
      Math.round(m.rps),
    ];
  });
  console.log(
    `CPU per request, ${settings.connections} connections, ${ROUNDS} x ${settings.duration} s each, alternating; ` +
      `node ${process.version}`,
  );
  console.log(table(["server", "CPU µs/req", "each round", "% of a core", "req/s"], rows));
  const bareUs = median(runs.get("bare node:http")).usPerRequest;
  const floorUs = median(runs.get("floor execute")).usPerRequest;
  const ourUs = median(runs.get("skillport execute")).usPerRequest;
  console.log(`\nbare/floor CPU per request = ${fmt(bareUs / floorUs, 3)}`);
  console.log(`bare/skillport CPU per request = ${fmt(bareUs / ourUs, 3)}`);
  if (other) {
    const ours = runs.get("skillport execute");
    const theirs = runs.get("compared build execute");
    const perRound = (what, ratio) => {
      const ratios = theirs.map((r, i) => ratio(r, ours[i])).sort((a, b) => a - b);
      const at = (q) => fmt(ratios[Math.floor(q * (ratios.length - 1))], 3);
      console.log(
        `compared build / this build, ${what}, per round: median ${at(0.5)}, quartiles ${at(0.25)} to ${at(0.75)}`,
      );
    };
    perRound("CPU per request", (r, o) => r.usPerRequest / o.usPerRequest);
    // The event loop, not the machine, limits a saturated server: work moved to another
    // thread shows here, not in CPU per request.
    perRound("requests/s", (r, o) => r.rps / o.rps);
    console.log(`  (compared build: ${COMPARE_CLI})`);
  }
} finally {
  await Promise.all([skillport.close(), other?.close(), stop(bare), stop(floor.child)]);
}
