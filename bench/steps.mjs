// CPU cost of each step of the request path, in-process and without HTTP, so the
// profile's percentages can be read as microseconds per request. Uses the built dist/
// modules (run `npm run build` first). Compare with the bare server's whole request:
// about 1e6 / (bare req/s) µs of one core. Usage: node bench/steps.mjs
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, table } from "./lib.mjs";

const dist = new URL("../dist/src/", import.meta.url);
const { createSkillport } = await import(new URL("bootstrap.js", dist));
const { loadConfig } = await import(new URL("config.js", dist));
const { createLogger } = await import(new URL("logging.js", dist));
const { hashSecret } = await import(new URL("core/keys/secret.js", dist));
const { keyWindows } = await import(new URL("core/limits/rate-limit.js", dist));

const dataDir = mkdtempSync(join(tmpdir(), "skillport-steps-"));
const logger = createLogger("warn", 2);
// Lexical discovery: the default (hybrid) loads an embedding model on a thread of its own,
// whose seconds of CPU would land in whichever step runs meanwhile.
const sp = await createSkillport(
  loadConfig({ SKILLPORT_DATA_DIR: dataDir, SKILLPORT_DISCOVERY_MODE: "lexical" }),
  logger,
);
await sp.start();
const { key, secret } = await sp.keys.create({
  name: "steps",
  scope: "full-access",
  plan: "enterprise",
  limits: { perMinute: 1e9, perDay: 1e9 },
});
const fullKey = await sp.store.keys.findByHash(hashSecret(secret));
const windows = keyWindows(fullKey.limits);
const executeInput = {
  skill_id: "math.evaluate",
  params: { expression: "2+3*4" },
  async: false,
  timeout_ms: 30_000,
};

/** µs per call of `fn`, awaited one after another, after a warm-up; median of 3 repeats. */
async function perCall(fn, n = 5000) {
  for (let i = 0; i < Math.min(n, 1000); i++) await fn(i);
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn(i);
    runs.push(Number(process.hrtime.bigint() - t) / 1e3 / n);
  }
  return runs.sort((a, b) => a - b)[1];
}

/** µs per call when `width` calls are in flight at once (like 50 connections): group commit shares fsyncs. */
async function perCallConcurrent(fn, width = 50, rounds = 200) {
  for (let r = 0; r < 20; r++) await Promise.all(Array.from({ length: width }, (_, i) => fn(i)));
  const t = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) await Promise.all(Array.from({ length: width }, (_, i) => fn(i)));
  return Number(process.hrtime.bigint() - t) / 1e3 / (width * rounds);
}

const rows = [];
const step = async (name, us, note = "") => rows.push([name, fmt(us, 1), note]);

await step("hashSecret (sha256 of the bearer)", await perCall(() => hashSecret(secret)));
await step(
  "keys.findByHash, no write in between",
  await perCall(() => sp.store.keys.findByHash(fullKey.hash)),
);
await step(
  "limiter.consume (IMMEDIATE txn, 2 windows)",
  await perCall(() => sp.store.limiter.consume(`key:${key.id}`, windows, Date.now())),
);
// The key lookup as it happens under load: the limiter's connection has just committed,
// so the main connection sees a changed database and starts its read afresh.
let lookup = 0n;
let lookups = 0;
await perCall(async () => {
  await sp.store.limiter.consume(`key:${key.id}`, windows, Date.now());
  const t = process.hrtime.bigint();
  await sp.store.keys.findByHash(fullKey.hash);
  lookup += process.hrtime.bigint() - t;
  lookups++;
});
await step("keys.findByHash right after a limiter commit", Number(lookup) / 1e3 / lookups, "as under load");
await step("access.admit (auth + limits), whole", await perCall(() => sp.access.admit(secret, "127.0.0.1")));
const math = sp.registry.get("math.evaluate").skill;
await step(
  "math.evaluate skill.run alone (mathjs)",
  await perCall(() => math.run({ expression: "2+3*4" }, {})),
);
const st = sp.store.groupCommitStats;
const before = { ...st };
await step(
  "executions.execute, 50 in flight",
  await perCallConcurrent(() => sp.executions.execute(fullKey, executeInput)),
  "math.evaluate + 2 record saves, fsync shared",
);
rows.push([
  "  group commits in that run",
  "",
  `${st.batches - before.batches} batches for ${st.writes - before.writes} writes`,
]);
await step(
  "executions.execute, one at a time",
  await perCall(() => sp.executions.execute(fullKey, executeInput), 500),
  "one fsync per request",
);
await step(
  "catalog.discover (lexical)",
  await perCall(() => sp.catalog.discover({ query: "send a message to a channel", limit: 5 })),
);
// What one durable commit costs on this disk: the group commit blocks the event loop for it.
const fd = openSync(join(dataDir, "fsync-probe"), "w");
const page = Buffer.alloc(4096);
await step(
  "write 4 KiB + fdatasync (this disk)",
  await perCall(() => {
    writeSync(fd, page);
    fdatasyncSync(fd);
  }, 300),
  "blocks the event loop",
);
closeSync(fd);

console.log(table(["step (in-process, no HTTP)", "µs/call", "note"], rows));
await sp.stop(1000);
await sp.close();
rmSync(dataDir, { recursive: true, force: true });
