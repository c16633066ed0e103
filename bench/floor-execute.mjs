// The floor of a durable execute, with nothing of skillport's code: what the contract makes
// every execution do, whichever surface it comes through. Find the key by its SHA-256,
// count the request against the key's minute and day windows (from a lease of requests
// claimed from the shared counters in one SQLite transaction, as skillport's
// LeasedLimiter does for busy keys), evaluate the expression (mathjs, compiled once per
// expression), and store the execution record through a group commit whose WAL is fsynced
// off the main thread (the way skillport's store does it): the answer waits for that. No
// validation, idempotency, concurrency cap, timeout, logs or metrics. `floor-server.mjs`
// (REST) and `mcp-bare-server.mjs` with BENCH_MCP_FLOOR=1 (MCP) put it behind plain
// node:http and the bare SDK server; what they cost bounds what any implementation of the
// contract can reach against the bare ones.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fdatasync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { all, create } from "mathjs";
import { Database } from "../dist/src/store/sqlite/driver.js";

const LIMITS = { minute: { ms: 60_000, max: 1e9 }, day: { ms: 86_400_000, max: 1e9 } };
/** Requests claimed per lease: about 100 ms of this load, what LeasedLimiter aims at. */
const LEASE_SIZE = 1000;
const sha256 = (text) => createHash("sha256").update(text).digest();

/** A floor on a fresh temporary data dir, with one key (`secret`). */
export function openFloor() {
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
  db.prepare("INSERT INTO keys VALUES ('key_floor', ?, 'floor', NULL)").run(sha256(secret));

  const findKey = db.prepare("SELECT id, owner FROM keys WHERE hash = ? AND revoked_at IS NULL");
  const count = db.prepare(`
    INSERT INTO counters VALUES (?, ?, ?, ?)
    ON CONFLICT (key_id, window) DO UPDATE SET
      count = CASE WHEN start = excluded.start THEN count + excluded.count ELSE excluded.count END,
      start = excluded.start
    RETURNING count`);
  const countWindows = db.transaction((keyId, now, requests) => {
    const counts = {};
    for (const [window, { ms }] of Object.entries(LIMITS)) {
      counts[window] = count.get(keyId, window, Math.floor(now / ms) * ms, requests).count;
    }
    return counts;
  });
  // One lease at a time (one key): requests counted in the store, not yet used here.
  const lease = { minuteStart: -1, unused: 0, counts: undefined };
  const takeFromLease = (keyId, now) => {
    const minuteStart = Math.floor(now / LIMITS.minute.ms) * LIMITS.minute.ms;
    if (lease.unused === 0 || lease.minuteStart !== minuteStart) {
      lease.counts = countWindows.immediate(keyId, now, LEASE_SIZE);
      lease.minuteStart = minuteStart;
      lease.unused = LEASE_SIZE;
    }
    lease.unused--;
    return { minute: lease.counts.minute - lease.unused, day: lease.counts.day - lease.unused };
  };
  const insert = db.prepare("INSERT INTO executions VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)");
  const insertAll = db.transaction((rows) => {
    for (const row of rows) insert.run(row);
  });

  // Group commit (as skillport's GroupCommit): rows of one loop turn, or of every turn
  // while an fdatasync of the WAL runs, share a transaction; one fdatasync at a time
  // covers every commit made before it started.
  let pending = [];
  let scheduled = false;
  let unsynced = [];
  let syncing = false;
  let walFd;
  const write = (row) =>
    new Promise((resolve) => {
      pending.push({ row, resolve });
      if (!scheduled && !syncing) {
        scheduled = true;
        setImmediate(commit);
      }
    });
  function commit() {
    scheduled = false;
    if (pending.length === 0) return;
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
    walFd ??= openSync(`${path}-wal`, "r");
    fdatasync(walFd, (err) => {
      if (err) throw err;
      syncing = false;
      for (const w of covered) w.resolve();
      if (pending.length > 0) commit();
      else startSync();
    });
  }

  const math = create(all);
  const compiled = new Map();
  let n = 0;

  return {
    secret,
    /**
     * One execution of `{ skill_id, params: { expression } }` by the holder of `secret`:
     * undefined for an unknown key, else the record (once durable) and the minute window's
     * limit headers.
     */
    async execute(secretGiven, body) {
      const key = findKey.get(sha256(secretGiven));
      if (!key) return undefined;
      const now = Date.now();
      const counts = takeFromLease(key.id, now);
      const expression = String(body?.params?.expression ?? "");
      const started = new Date().toISOString();
      if (!compiled.has(expression)) compiled.set(expression, math.compile(expression));
      const value = compiled.get(expression).evaluate();
      const result = { value, type: typeof value, text: String(value) };
      const finished = new Date().toISOString();
      const record = {
        id: `exec_${(++n).toString(36).padStart(22, "0")}`,
        skill_id: body?.skill_id ?? null,
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
        JSON.stringify(body?.params ?? {}),
        JSON.stringify(result),
        started,
        started,
        finished,
        0.05,
      ]);
      const headers = {
        "x-ratelimit-limit": String(LIMITS.minute.max),
        "x-ratelimit-remaining": String(LIMITS.minute.max - counts.minute),
        "x-ratelimit-reset": String(Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000) / 1000)),
      };
      return { record, headers };
    },
    close() {
      if (walFd !== undefined) closeSync(walFd);
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
