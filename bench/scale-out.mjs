// The scale-out part of `npm run bench` (issue 8): throughput of the execute path with 1, 2
// and 3 replicas on PostgreSQL + Redis against the embedded single process (SQLite), in
// the same run, with the same load generator (bench/load.mjs spreading its connections
// over the replicas), and the store round trips of one synchronous execute.
//
// Needs SKILLPORT_TEST_DATABASE_URL and SKILLPORT_TEST_REDIS_URL (eval "$(scripts/test-services.sh start)"
// starts a throwaway pair); without them it says so and skips. Each run uses a fresh
// database and Redis key prefix, dropped afterwards.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fmt, load, otherCpu, ROOT, settings, startSkillport, table } from "./lib.mjs";

const require = createRequire(join(ROOT, "package.json"));
const pg = require("pg");
const { Redis } = require("ioredis");

const EXECUTE_BODY = JSON.stringify({ skill_id: "math.evaluate", params: { expression: "2+3*4" } });
const SEQUENTIAL_EXECUTES = 200;

/** Runs the scale-out figures; `check(ok, message)` records correctness failures. */
export async function benchScaleOut(check) {
  const databaseUrl = process.env.SKILLPORT_TEST_DATABASE_URL;
  const redisUrl = process.env.SKILLPORT_TEST_REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    console.log(
      "\nscale-out: skipped (set SKILLPORT_TEST_DATABASE_URL and SKILLPORT_TEST_REDIS_URL; " +
        'eval "$(scripts/test-services.sh start)" starts a throwaway PostgreSQL and Redis)',
    );
    return undefined;
  }
  const name = `skillport_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const query = async (connectionString, sql, values) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows;
    } finally {
      await client.end();
    }
  };
  const admin = (sql, values) => query(databaseUrl, sql, values);
  await admin(`create database ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const inBench = (sql, values) => query(url.toString(), sql, values);
  const keyPrefix = `${name}:`;
  const env = {
    SKILLPORT_DATABASE_URL: url.toString(),
    SKILLPORT_REDIS_URL: redisUrl,
    SKILLPORT_REDIS_KEY_PREFIX: keyPrefix,
  };
  const redis = new Redis(redisUrl);
  const servers = [];
  try {
    const embedded = await startSkillport();
    servers.push(embedded);
    // One replica first (it migrates the new database), then the others at once.
    servers.push(await startSkillport({ env }));
    servers.push(...(await Promise.all([startSkillport({ env }), startSkillport({ env })])));
    const replicas = servers.slice(1);
    for (const server of servers) {
      const res = await fetch(server.url("/v1/execute"), {
        method: "POST",
        headers: server.headers,
        body: EXECUTE_BODY,
      });
      const body = await res.json();
      check(
        res.status === 200 && body.result?.value === 14,
        `scale-out probe: ${res.status} ${JSON.stringify(body)}`,
      );
    }

    const trips = await roundTrips(replicas[0], admin, name, redis);

    const configs = [
      { name: "embedded SQLite, 1 process", targets: [embedded] },
      { name: "PostgreSQL + Redis, 1 replica", targets: replicas.slice(0, 1) },
      { name: "PostgreSQL + Redis, 2 replicas", targets: replicas.slice(0, 2) },
      { name: "PostgreSQL + Redis, 3 replicas", targets: replicas },
    ];
    const results = {};
    let answered = 0;
    for (const config of configs) {
      const opts = {
        urls: config.targets.map((s) => s.url("/v1/execute")),
        headers: config.targets.map((s) => s.headers),
        method: "POST",
        body: EXECUTE_BODY,
        connections: settings.connections,
      };
      const warm = await load({ ...opts, duration: settings.warmup });
      const others = otherCpu([...servers.map((s) => s.pid), ...databasePids()]);
      const r = await load({ ...opts, duration: settings.duration });
      r.other_processes_cpu_pct = others();
      if (config.targets !== configs[0].targets) answered += warm.ok_2xx + r.ok_2xx;
      check(
        r.ok_2xx > 0 && r.non_2xx === 0 && r.errors === 0 && r.timeouts === 0,
        `${config.name}: ${r.ok_2xx} 2xx, ${r.non_2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
      );
      results[config.name] = r;
      console.log(`  measured ${config.name}: ${fmt(r.requests_per_s, 0)} req/s`);
    }

    // Every 200 is a committed record in PostgreSQL (stopping flushes pending saves).
    await Promise.all(replicas.map((s) => s.stop()));
    const [{ n: persisted }] = await inBench(
      "select count(*)::int as n from executions where skill_id = 'math.evaluate' and status = 'completed'",
    );
    check(
      persisted >= answered + SEQUENTIAL_EXECUTES,
      `PostgreSQL holds ${persisted} completed records for ${answered + SEQUENTIAL_EXECUTES} answered 200`,
    );

    const base = results[configs[0].name].requests_per_s;
    console.log(
      `\nscale-out: execute (math.evaluate, sync), ${settings.connections} connections spread evenly over the replicas\n${table(
        ["configuration", "req/s", "p50 ms", "p99 ms", "vs embedded", "others cpu"],
        Object.entries(results).map(([configName, r]) => [
          configName,
          fmt(r.requests_per_s, 0),
          fmt(r.p50_ms),
          fmt(r.p99_ms),
          `${fmt((100 * r.requests_per_s) / base, 1)}%`,
          `${fmt(r.other_processes_cpu_pct, 1)}%`,
        ]),
      )}`,
    );
    console.log(
      `store round trips per sync execute (${SEQUENTIAL_EXECUTES} sequential requests, one replica): ` +
        `PostgreSQL ${fmt(trips.postgres)} statements, Redis ${fmt(trips.redis)} commands`,
    );
    console.log(
      `records persisted in PostgreSQL: ${persisted} for ${answered + SEQUENTIAL_EXECUTES} answered 200`,
    );
    console.log(
      `note: the replicas, PostgreSQL, Redis and the load generator all share ${settings.cores} cores, so ` +
        "more replicas cannot add CPU: they add processes competing for the same cores.",
    );
    return { results, round_trips_per_execute: trips, persisted, answered: answered + SEQUENTIAL_EXECUTES };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await admin(`drop database if exists ${name} with (force)`);
  }
}

/** PostgreSQL's and Redis's processes: their CPU is the deployment's, not "other work". */
function databasePids() {
  const pids = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (comm === "postgres" || comm === "redis-server") pids.push(pid);
    } catch {
      // exited
    }
  }
  return pids;
}

/**
 * Statements PostgreSQL committed (pg_stat_database.xact_commit: every statement outside
 * a transaction is one; the replicas' background beats are a handful at most) and Redis
 * commands processed, per synchronous execute sent one at a time.
 */
async function roundTrips(server, admin, database, redis) {
  const commits = async () => {
    await admin("select pg_stat_clear_snapshot()");
    const [{ n }] = await admin(
      "select xact_commit::bigint::text as n from pg_stat_database where datname = $1",
      [database],
    );
    return Number(n);
  };
  // Commands clients sent (a script's inner commands are not round trips): the limiter
  // sends EVALSHA (EVAL the first time) and MGET.
  const commands = async () => {
    const stats = await redis.info("commandstats");
    let calls = 0;
    for (const name of ["evalsha", "eval", "mget"]) {
      calls += Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    }
    return calls;
  };
  // Statistics reach pg_stat_database when a session reports them (at most every second).
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));
  await settle();
  const [pgBefore, redisBefore] = [await commits(), await commands()];
  for (let i = 0; i < SEQUENTIAL_EXECUTES; i++) {
    await fetch(server.url("/v1/execute"), {
      method: "POST",
      headers: server.headers,
      body: EXECUTE_BODY,
    }).then((r) => r.arrayBuffer());
  }
  await settle();
  const [pgAfter, redisAfter] = [await commits(), await commands()];
  return {
    // The two admin sessions of `commits` count as well: take them out.
    postgres: (pgAfter - pgBefore - 2) / SEQUENTIAL_EXECUTES,
    redis: (redisAfter - redisBefore) / SEQUENTIAL_EXECUTES,
  };
}
