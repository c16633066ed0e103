/**
 * A quick measurement of the SQLite store's hot paths on this machine:
 *   npx tsx test/store/support/measure-sqlite.ts
 * (a) `limiter.consume` per call, (b) group-committed `executions.save` throughput.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../../../src/store/sqlite/index.js";
import { makeExecution } from "../contract/fixtures.js";

const dataDir = await mkdtemp(join(tmpdir(), "skillport-measure-"));
const store = openSqliteStore({ dataDir });
const windows = [
  { limit: 1_000_000, windowSeconds: 60 },
  { limit: 10_000_000, windowSeconds: 86_400 },
];

async function timed(label: string, count: number, run: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await run();
  const elapsedMs = performance.now() - started;
  const perCallUs = ((elapsedMs * 1000) / count).toFixed(1);
  const perSecond = Math.round((count / elapsedMs) * 1000);
  console.log(`${label}: ${count} in ${elapsedMs.toFixed(0)} ms = ${perCallUs} µs each, ${perSecond}/s`);
}

try {
  await timed("consume, one bucket", 20_000, async () => {
    for (let i = 0; i < 20_000; i++) await store.limiter.consume("bucket", windows, Date.now());
  });
  await timed("consume, 1000 buckets", 20_000, async () => {
    for (let i = 0; i < 20_000; i++) await store.limiter.consume(`bucket-${i % 1000}`, windows, Date.now());
  });
  for (const batchSize of [1, 50, 500]) {
    const total = batchSize === 1 ? 1000 : 10_000;
    const before = store.groupCommitStats.batches;
    await timed(`save, batches of ${batchSize}`, total, async () => {
      for (let done = 0; done < total; done += batchSize) {
        await Promise.all(Array.from({ length: batchSize }, () => store.executions.save(makeExecution())));
      }
    });
    console.log(`  commits: ${store.groupCommitStats.batches - before}`);
  }
} finally {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
}
