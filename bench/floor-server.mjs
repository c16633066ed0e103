// The floor of a durable execute: plain node:http doing only what the contract makes every
// `POST /v1/execute` do, with nothing of skillport's code: look up the bearer key by its
// SHA-256, count the request against the key's minute and day windows, evaluate the
// expression (mathjs, compiled once per expression), store the execution record, and
// answer once a group commit holding it is committed and its WAL fsynced (the way
// skillport's store does it). No routing, schema validation, idempotency, concurrency cap,
// timeout, headers beyond the limits, logs or metrics. What this server costs per request
// bounds what any implementation of the contract can reach against the bare server.
// The key is printed on start; the data dir is a temporary one, removed on SIGTERM.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fdatasync, mkdtempSync, openSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { all, create } from "mathjs";
import { Database } from "../dist/src/store/sqlite/driver.js";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 0);
const dir = mkdtempSync(join(tmpdir(), "skillport-floor-"));
const path = join(dir, "floor.db");
const db = new Database(path);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(`
  CREATE TABLE keys (id TEXT PRIMARY KEY, hash BLOB UNIQUE NOT NULL, owner TEXT NOT NULL, revoked_at TEXT);
  CREATE TABLE counters (key_id TEXT, window TEXT, start INTEGER, count INTEGER, PRIMARY KEY (key_id, window));
  CREATE TABLE executions (id TEXT PRIMARY KEY, key_id TEXT, owner TEXT, skill_id TEXT, status TEXT,
    params TEXT, result TEXT, error TEXT, created_at TEXT, started_at TEXT, finished_at TEXT, latency_ms REAL);
`);
const secret = `sk_live_${randomBytes(24).toString("base64url")}`;
const sha256 = (text) => createHash("sha256").update(text).digest();
db.prepare("INSERT INTO keys VALUES ('key_floor', ?, 'floor', NULL)").run(sha256(secret));

const LIMITS = { minute: { ms: 60_000, max: 1e9 }, day: { ms: 86_400_000, max: 1e9 } };
const findKey = db.prepare("SELECT id, owner FROM keys WHERE hash = ? AND revoked_at IS NULL");
const count = db.prepare(`
  INSERT INTO counters VALUES (?, ?, ?, 1)
  ON CONFLICT (key_id, window) DO UPDATE SET
    count = CASE WHEN start = excluded.start THEN count + 1 ELSE 1 END, start = excluded.start
  RETURNING count`);
// Both windows in one transaction: one WAL commit per request, as skillport's limiter does.
const countWindows = db.transaction((keyId, now) => {
  const counts = {};
  for (const [window, { ms }] of Object.entries(LIMITS)) {
    counts[window] = count.get(keyId, window, Math.floor(now / ms) * ms).count;
  }
  return counts;
});
const insert = db.prepare("INSERT INTO executions VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)");
const insertAll = db.transaction((rows) => {
  for (const row of rows) insert.run(row);
});

// Group commit: rows of one loop turn share a transaction; one fdatasync of the WAL at a
// time covers every commit made before it started.
let pending = [];
let scheduled = false;
let unsynced = [];
let syncing = false;
const wal = () => openSync(`${path}-wal`, "r");
let walFd;
function write(row) {
  return new Promise((resolve) => {
    pending.push({ row, resolve });
    if (!scheduled) {
      scheduled = true;
      setImmediate(commit);
    }
  });
}
function commit() {
  scheduled = false;
  const batch = pending;
  pending = [];
  insertAll.immediate(batch.map((w) => w.row));
  unsynced.push(...batch);
  startSync();
}
function startSync() {
  if (syncing || unsynced.length === 0) return;
  const covered = unsynced;
  unsynced = [];
  syncing = true;
  walFd ??= wal();
  fdatasync(walFd, (err) => {
    if (err) throw err;
    syncing = false;
    for (const w of covered) w.resolve();
    startSync();
  });
}

const math = create(all);
const compiled = new Map();
let n = 0;

function answer(res, status, payload, headers = {}) {
  const json = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const auth = req.headers.authorization ?? "";
    const key = auth.startsWith("Bearer ") ? findKey.get(sha256(auth.slice(7))) : undefined;
    if (!key) return answer(res, 401, { error: { code: "invalid_api_key" } });
    const now = Date.now();
    const counts = countWindows.immediate(key.id, now);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return answer(res, 400, { error: { code: "invalid_request" } });
    }
    const expression = String(body.params?.expression ?? "");
    const started = new Date().toISOString();
    if (!compiled.has(expression)) compiled.set(expression, math.compile(expression));
    const value = compiled.get(expression).evaluate();
    const result = { value, type: typeof value, text: String(value) };
    const finished = new Date().toISOString();
    const record = {
      id: `exec_${(++n).toString(36).padStart(22, "0")}`,
      skill_id: body.skill_id ?? null,
      status: "completed",
      success: true,
      error: null,
      latency_ms: 0.05,
      result,
      created_at: started,
      started_at: started,
      finished_at: finished,
    };
    await write([
      record.id,
      key.id,
      key.owner,
      record.skill_id,
      "completed",
      JSON.stringify(body.params ?? {}),
      JSON.stringify(result),
      started,
      started,
      finished,
      0.05,
    ]);
    answer(res, 200, record, {
      "x-ratelimit-limit": String(LIMITS.minute.max),
      "x-ratelimit-remaining": String(LIMITS.minute.max - counts.minute),
      "x-ratelimit-reset": String(Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000) / 1000)),
    });
  });
});
server.listen(port, host, () => {
  // The parent reads the key and the port from these lines.
  process.stdout.write(
    `${JSON.stringify({ key: secret })}\n${JSON.stringify({ listening: server.address().port })}\n`,
  );
});
process.on("SIGTERM", () =>
  server.close(() => {
    if (walFd !== undefined) closeSync(walFd);
    db.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
