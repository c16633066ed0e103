import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { makeExecution, makeKey, T0, uniqueId } from "./contract/fixtures.js";
import { describeStoreContract } from "./store-contract.js";
import { useTempStores } from "./support/temp-store.js";

describeStoreContract("sqlite", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "skillport-store-"));
  const store = openSqliteStore({ dataDir });
  return {
    store,
    async cleanup() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

// Two stores on one data dir behave like two processes: separate connections, no shared
// memory. (A real second process is in sqlite-process.test.ts.)
describe("sqlite: two stores on one data dir", () => {
  const temp = useTempStores();
  const openPair = async () => {
    const dataDir = await temp.dataDir();
    return [temp.open({ dataDir }), temp.open({ dataDir })] as const;
  };

  it("sees a key inserted by the other store on its very next lookup", async () => {
    const [a, b] = await openPair();
    const key = makeKey();
    expect(await b.keys.findByHash(key.hash)).toBeUndefined();
    await a.keys.insert(key);
    expect(await b.keys.findByHash(key.hash)).toEqual(key);
  });

  it("refuses a key revoked by the other store on its very next lookup", async () => {
    const [a, b] = await openPair();
    const key = makeKey();
    await a.keys.insert(key);
    expect((await b.keys.findByHash(key.hash))?.revokedAt).toBeNull();
    await a.keys.revoke(key.id, isoTimestamp(T0));
    expect((await b.keys.findByHash(key.hash))?.revokedAt).toBe(isoTimestamp(T0));
  });

  it("shares limit counters: the limit holds across both stores", async () => {
    const [a, b] = await openPair();
    const bucket = uniqueId("bucket");
    const windows = [{ limit: 5, windowSeconds: 60 }];
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(await (i % 2 ? a : b).limiter.consume(bucket, windows, T0));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect((await a.limiter.peek(bucket, windows, T0)).windows[0]?.remaining).toBe(0);
  });

  it("reads an execution the other store saved, once its save resolved", async () => {
    const [a, b] = await openPair();
    const execution = makeExecution({ status: "completed" });
    await a.executions.save(execution);
    expect(await b.executions.get(execution.record.id)).toEqual(execution);
  });

  it("gives each orphan to exactly one of two stores claiming at once", async () => {
    const [a, b] = await openPair();
    const orphans = Array.from({ length: 50 }, () => makeExecution({ status: "running", runnerId: "dead" }));
    await Promise.all(orphans.map((orphan) => a.executions.save(orphan)));
    await a.executions.heartbeat({ id: "runner_a", host: "h", pid: 1, heartbeatAt: T0 });
    await a.executions.heartbeat({ id: "runner_b", host: "h", pid: 2, heartbeatAt: T0 });
    const gone = (runner: unknown) => runner === undefined;
    const claims = await Promise.all([
      a.executions.claimOrphans("runner_a", gone),
      b.executions.claimOrphans("runner_b", gone),
    ]);
    const claimed = claims.flat().map((execution) => execution.record.id);
    expect(claimed.sort()).toEqual(orphans.map((orphan) => orphan.record.id).sort());
  });

  it("returns the other store's idempotency reservation", async () => {
    const [a, b] = await openPair();
    const entry = {
      keyId: "key_1",
      idempotencyKey: "k",
      requestHash: "h",
      executionId: "exe_1",
      mode: "sync" as const,
      createdAt: isoTimestamp(T0),
      expiresAt: isoTimestamp(T0 + 60_000),
    };
    expect(await a.idempotency.reserve(entry)).toEqual({ reserved: true });
    expect(await b.idempotency.reserve({ ...entry, executionId: "exe_2" })).toEqual({
      reserved: false,
      existing: entry,
    });
  });
});
