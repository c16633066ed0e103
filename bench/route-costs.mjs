// CPU time per request of each REST route, next to a bare node:http server and a minimal
// Fastify route (the framework alone), each loaded in turn by the same separate load
// process; a route far above its neighbours is worth a profile (this is how a memory leak
// on the polling route showed: it cost twice an execute). Also prints skillport's resident
// memory before and after, since a route that retains memory also slows down as it grows.
// Usage: node bench/route-costs.mjs (BENCH_ROUNDS, default 3, median kept; BENCH_DURATION;
// BENCH_WARMUP; BENCH_CONNECTIONS).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  cpuSeconds,
  fmt,
  listeningPort,
  load,
  settings,
  startNode,
  startSkillport,
  stop,
  table,
} from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXECUTE_BODY = JSON.stringify({ skill_id: "math.evaluate", params: { expression: "2+3*4" } });
const JSON_HEADERS = { "content-type": "application/json" };

const residentMb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
const serverFile = (name) => fileURLToPath(new URL(name, import.meta.url));

// Lexical discovery: the embedding model's one-off load would land in the first rounds.
const skillport = await startSkillport({ env: { SKILLPORT_DISCOVERY_MODE: "lexical" } });
const bare = startNode(serverFile("./bare-server.mjs"));
const fastify = startNode(serverFile("./frameworks/fastify.mjs"));
try {
  const executed = await fetch(skillport.url("/v1/execute"), {
    method: "POST",
    headers: skillport.headers,
    body: EXECUTE_BODY,
  });
  const { id } = await executed.json();
  const withKey = { authorization: skillport.headers.authorization };
  const ours = (name, method, path, body) => ({
    name,
    pid: skillport.pid,
    options: {
      url: skillport.url(path),
      method,
      headers: body ? skillport.headers : withKey,
      ...(body && { body }),
    },
  });
  const post = async (name, child) => ({
    name,
    pid: child.pid,
    options: {
      url: `http://127.0.0.1:${await listeningPort(child)}/`,
      method: "POST",
      headers: JSON_HEADERS,
      body: EXECUTE_BODY,
    },
  });
  const targets = [
    await post("bare node:http POST", bare),
    await post("Fastify, minimal POST route", fastify),
    {
      ...ours("GET /healthz", "GET", "/healthz"),
      options: { url: skillport.url("/healthz"), method: "GET" },
    },
    ours("GET /v1/skills/math.evaluate", "GET", "/v1/skills/math.evaluate"),
    ours("GET /v1/executions/{id}", "GET", `/v1/executions/${id}`),
    ours("GET /v1/executions/{id}?wait=1", "GET", `/v1/executions/${id}?wait=1`),
    ours("GET /v1/executions?limit=5", "GET", "/v1/executions?limit=5"),
    ours(
      "POST /v1/discover",
      "POST",
      "/v1/discover",
      JSON.stringify({ query: "send a message to a channel" }),
    ),
    ours("POST /v1/execute", "POST", "/v1/execute", EXECUTE_BODY),
  ];
  for (const t of targets) await load({ ...t.options, duration: settings.warmup });
  const residentBefore = residentMb(skillport.pid);
  const runs = new Map(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const before = cpuSeconds(t.pid);
      const r = await load({ ...t.options, duration: settings.duration });
      const cpu = cpuSeconds(t.pid) - before;
      if (r.non_2xx > 0 || r.errors > 0)
        throw new Error(`${t.name}: ${r.non_2xx} non-2xx, ${r.errors} errors`);
      runs.get(t.name).push({ us: (cpu * 1e6) / r.ok_2xx, rps: r.requests_per_s });
    }
  }
  console.log(
    `CPU per request, ${settings.connections} connections, ${ROUNDS} x ${settings.duration} s each, alternating; node ${process.version}`,
  );
  const rows = targets.map((t) => {
    const all = runs.get(t.name).sort((a, b) => a.us - b.us);
    const median = all[Math.floor(all.length / 2)];
    return [t.name, fmt(median.us, 1), all.map((x) => fmt(x.us, 1)).join(" "), Math.round(median.rps)];
  });
  console.log(table(["route", "CPU µs/req", "rounds", "req/s"], rows));
  console.log(
    `\nskillport's resident memory: ${fmt(residentBefore, 0)} MB after the warm-up, ${fmt(residentMb(skillport.pid), 0)} MB at the end`,
  );
} finally {
  await Promise.all([skillport.close(), stop(bare), stop(fastify)]);
}
