// `node bench/key-timing.mjs` (after `npm run build`): how long a key check takes for a
// guess that shares 0, 10, 20 or 29 of the 30 random characters with a real key (each
// with a valid checksum, so it reaches the store), against the real SQLite key store.
// The check hashes the whole guess and looks the hash up, so the figures should not
// grow with the number of right characters. Settings: KEY_TIMING_ROUNDS (default 20000).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { table } from "./lib.mjs";

const dist = new URL("../dist/src/", import.meta.url);
const { KeyService } = await import(new URL("core/keys/key-service.js", dist));
const { toBase62 } = await import(new URL("core/ids.js", dist));
const { systemClock } = await import(new URL("core/clock.js", dist));
const { openSqliteStore } = await import(new URL("store/sqlite/index.js", dist));

const rounds = Number(process.env.KEY_TIMING_ROUNDS ?? 20_000);
const dataDir = mkdtempSync(join(tmpdir(), "skillport-key-timing-"));
const store = openSqliteStore({ dataDir, clock: systemClock });
const keys = new KeyService(store.keys, systemClock);
const { secret } = await keys.create({ name: "timing", scope: "full-access" });

const nearMiss = (same) => {
  const random = secret.slice(8, 38);
  const body = `sk_live_${[...random].map((c, i) => (i < same ? c : c === "A" ? "B" : "A")).join("")}`;
  return body + toBase62(crc32(body), 6);
};
const cases = [0, 10, 20, 29].map((same) => ({ label: `${same} of 30 right`, secret: nearMiss(same) }));
const samples = new Map(cases.map((c) => [c.label, []]));

for (let round = 0; round < rounds; round++) {
  for (const c of cases) {
    const started = process.hrtime.bigint();
    await keys.authenticate(c.secret).catch(() => {});
    samples.get(c.label).push(Number(process.hrtime.bigint() - started) / 1000);
  }
}
await store.close();
rmSync(dataDir, { recursive: true, force: true });

const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
console.log(`key check time by how much of the key is right (${rounds} rounds, interleaved):\n`);
console.log(
  table(
    ["guess", "median µs", "p90 µs", "p99 µs"],
    cases.map((c) => {
      const sorted = samples.get(c.label).sort((a, b) => a - b);
      return [c.label, at(sorted, 0.5).toFixed(2), at(sorted, 0.9).toFixed(2), at(sorted, 0.99).toFixed(2)];
    }),
  ),
);
