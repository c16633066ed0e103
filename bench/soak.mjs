// `npm run soak`: a bounded, steady load against the real server on 127.0.0.1 — discover,
// sync and async execute, long polls, cancels, and a small key driven into 429s — then a
// check that every execution the server accepted is a record on disk, and no other.
//
// Reports, per window: requests, p50/p99 latency of answered requests, errors (5xx and
// network failures), 429s, and the server's resident memory; at the end the p99 drift
// (last window vs first), memory growth, and accepted versus stored records. Exits 1 on
// any 5xx, network error or record mismatch. Settings: SOAK_SECONDS (default 600),
// SOAK_RATE (requests/s, default 80), SOAK_WINDOW_SECONDS (default 30), SOAK_JSON=1 prints
// the summary as one JSON line (the CI variant reads it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createBenchKey, fmt, ROOT, startSkillport, table } from "./lib.mjs";

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const rate = Number(process.env.SOAK_RATE ?? 80);
const windowSeconds = Number(process.env.SOAK_WINDOW_SECONDS ?? 30);
const asJson = process.env.SOAK_JSON === "1";
const log = (...args) => (asJson ? console.error(...args) : console.log(...args));

const server = await startSkillport();
const smallKey = createBenchKey(server.dataDir, { name: "soak-small", perMinute: 10, perDay: 100_000 });
const smallHeaders = { authorization: `Bearer ${smallKey.secret}`, "content-type": "application/json" };

const accepted = new Set(); // execution ids answered 200 or 202
const asyncIds = [];
const windows = [];
let current;
const newWindow = () => {
  current = { started: Date.now(), latencies: [], requests: 0, errors: 0, limited: 0, byOp: {} };
  windows.push(current);
};

async function call(op, path, { method = "POST", body, headers = server.headers } = {}) {
  const window = current;
  window.requests++;
  window.byOp[op] = (window.byOp[op] ?? 0) + 1;
  const started = performance.now();
  try {
    const res = await fetch(server.url(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    window.latencies.push(performance.now() - started);
    if (res.status >= 500) {
      window.errors++;
      log(`5xx on ${op}: ${res.status} ${text.slice(0, 200)}`);
    }
    if (res.status === 429) window.limited++;
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  } catch (err) {
    window.errors++;
    log(`network error on ${op}: ${err.message}`);
    return { status: 0 };
  }
}

function record(res) {
  if ((res.status === 200 || res.status === 202) && res.body?.id) accepted.add(res.body.id);
  return res;
}

/** One request of the mix, chosen by weight. */
async function oneRequest(i) {
  const pick = i % 20;
  if (pick < 6) return call("discover", "/v1/discover", { body: { query: "send a message to a channel" } });
  if (pick < 12) {
    return record(
      await call("execute sync", "/v1/execute", {
        body: { skill_id: "math.evaluate", params: { expression: `${i} * 3 + 1` } },
      }),
    );
  }
  if (pick < 15) {
    const res = record(
      await call("execute async", "/v1/execute", {
        body: { skill_id: "util.wait", params: { ms: 100 + (i % 7) * 300 }, async: true },
      }),
    );
    if (res.status === 202) asyncIds.push(res.body.id);
    return res;
  }
  if (pick < 17) {
    const id = asyncIds[i % Math.max(1, asyncIds.length)];
    if (id) return call("poll", `/v1/executions/${id}?wait=2`, { method: "GET" });
    return undefined;
  }
  if (pick < 18) {
    const id = asyncIds.at(-1);
    if (id) return call("cancel", `/v1/executions/${id}/cancel`);
    return undefined;
  }
  // A key allowed 10 a minute, asked far more often: most of these end 429.
  return record(
    await call("execute (small key)", "/v1/execute", {
      headers: smallHeaders,
      body: { skill_id: "message.send", params: { channel: "soak", text: `m${i}` } },
    }),
  );
}

function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+)/m);
  return line ? Number(line[1]) / 1024 : Number.NaN;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// One-off costs (workers loading the skills' libraries) are paid before the clock starts.
for (const expression of ["1+1", "2+2", "3+3", "4+4"]) {
  await fetch(server.url("/v1/execute"), {
    method: "POST",
    headers: server.headers,
    body: JSON.stringify({ skill_id: "math.evaluate", params: { expression } }),
  }).then((res) => res.json().then((body) => accepted.add(body.id)));
}
log(`soak: ${seconds} s at ${rate} requests/s against ${server.url("/")} (windows of ${windowSeconds} s)`);
const inFlight = new Set();
const started = Date.now();
const memory = [rssMb(server.pid)];
newWindow();
let sent = 0;
while (Date.now() - started < seconds * 1000) {
  const due = Math.floor(((Date.now() - started) / 1000) * rate);
  while (sent < due) {
    const p = oneRequest(sent++).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  if (Date.now() - current.started >= windowSeconds * 1000) {
    memory.push(rssMb(server.pid));
    newWindow();
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
}
await Promise.all(inFlight);
memory.push(rssMb(server.pid));
// Async executions still running end before the check (a graceful stop would interrupt
// them); these polls are not part of the measured load.
for (const id of asyncIds) {
  await fetch(server.url(`/v1/executions/${id}?wait=10`), { headers: server.headers }).then((res) =>
    res.text(),
  );
}

await server.stop();
const { Database } = await import(pathToFileURL(join(ROOT, "dist/src/store/sqlite/driver.js")).href);
const db = new Database(join(server.dataDir, "skillport.db"), { readonly: true });
const stored = new Set(db.prepare("select id from executions").pluck().all());
db.close();
await server.close();

const missing = [...accepted].filter((id) => !stored.has(id));
const extra = [...stored].filter((id) => !accepted.has(id));
const rows = windows
  .filter((w) => w.requests > 0)
  .map((w, index) => {
    const sorted = w.latencies.sort((a, b) => a - b);
    return {
      window: index + 1,
      requests: w.requests,
      p50_ms: percentile(sorted, 50),
      p99_ms: percentile(sorted, 99),
      errors: w.errors,
      limited_429: w.limited,
      rss_mb: memory[index + 1] ?? memory.at(-1),
    };
  });
const first = rows[0];
const last = rows.at(-1);
const summary = {
  seconds,
  rate,
  requests: rows.reduce((n, r) => n + r.requests, 0),
  errors: rows.reduce((n, r) => n + r.errors, 0),
  limited_429: rows.reduce((n, r) => n + r.limited_429, 0),
  p99_first_ms: first?.p99_ms,
  p99_last_ms: last?.p99_ms,
  p99_drift_ms: last && first ? last.p99_ms - first.p99_ms : Number.NaN,
  rss_start_mb: memory[0],
  rss_end_mb: memory.at(-1),
  rss_growth_mb: memory.at(-1) - memory[0],
  executions_accepted: accepted.size,
  records_stored: stored.size,
  records_lost: missing.length,
  records_unexpected: extra.length,
};
if (asJson) {
  console.log(JSON.stringify({ summary, windows: rows }));
} else {
  console.log(
    `\n${table(
      ["window", "requests", "p50 ms", "p99 ms", "errors", "429s", "RSS MB"],
      rows.map((r) => [
        r.window,
        r.requests,
        fmt(r.p50_ms, 2),
        fmt(r.p99_ms, 2),
        r.errors,
        r.limited_429,
        fmt(r.rss_mb, 1),
      ]),
    )}\n`,
  );
  console.log(JSON.stringify(summary, null, 2));
}
const failed = summary.errors > 0 || missing.length > 0 || extra.length > 0;
if (failed)
  console.error(
    `soak FAILED: ${summary.errors} errors, ${missing.length} lost, ${extra.length} unexpected records`,
  );
process.exit(failed ? 1 : 0);
