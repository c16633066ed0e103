import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isoTimestamp, ManualClock } from "../../src/core/clock.js";
import { silentLogger } from "../../src/core/logger.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { GroupCommit } from "../../src/store/sqlite/group-commit.js";
import { DEFAULT_DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { MARK_USED_INTERVAL_MS } from "../../src/store/sqlite/key-store.js";
import { makeExecution, makeKey, T0 } from "./contract/fixtures.js";
import { useTempStores } from "./support/temp-store.js";

describe("sqlite: group commit", () => {
  const temp = useTempStores();

  /** An fsync the test completes or fails by hand, counting how often it was asked for. */
  const manualSync = () => {
    const calls: { resolve(): void; reject(err: Error): void }[] = [];
    const sync = () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject }));
    return { sync, calls };
  };
  const instantSync = async () => {};

  const openWriter = async (sync: () => Promise<void> = instantSync) => {
    const db = new Database(join(await temp.dataDir(), "group.db"));
    db.exec("create table t (k text primary key, v integer not null) strict");
    const writer = new GroupCommit(db, silentLogger, sync);
    const put = (k: string, v: number | null) => () => {
      db.prepare("insert or replace into t (k, v) values (?, ?)").run(k, v);
    };
    const count = () => (db.prepare("select count(*) as n from t").get() as { n: number }).n;
    return { db, writer, put, count };
  };
  const settled = (promise: Promise<unknown>) => {
    const state = { done: false };
    promise.then(
      () => {
        state.done = true;
      },
      () => {
        state.done = true;
      },
    );
    return state;
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it("commits the writes of one event-loop turn in one transaction and one fsync", async () => {
    const { writer, put, count, db } = await openWriter();
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer.write(`k${i}`, put(`k${i}`, i))));
    expect(writer.stats).toEqual({ batches: 1, writes: 200, failedBatches: 0, syncs: 1 });
    expect(count()).toBe(200);
    db.close();
  });

  it("resolves a write only after the fsync that follows its commit", async () => {
    const fsync = manualSync();
    const { writer, put, count, db } = await openWriter(fsync.sync);
    const write = settled(writer.write("a", put("a", 1)));
    await turn();
    expect(count()).toBe(1); // committed...
    expect(write.done).toBe(false); // ...but not yet durable, so not yet acknowledged
    fsync.calls[0]?.resolve();
    await turn();
    expect(write.done).toBe(true);
    db.close();
  });

  it("makes commits that land during an fsync wait for the next one, which covers them all", async () => {
    const fsync = manualSync();
    const { writer, put, db } = await openWriter(fsync.sync);
    const first = settled(writer.write("a", put("a", 1)));
    await turn();
    const second = settled(writer.write("b", put("b", 2)));
    const third = settled(writer.write("c", put("c", 3)));
    await turn();
    expect(fsync.calls).toHaveLength(1); // one fsync at a time
    fsync.calls[0]?.resolve();
    await turn();
    expect([first.done, second.done, third.done]).toEqual([true, false, false]);
    expect(fsync.calls).toHaveLength(2);
    fsync.calls[1]?.resolve();
    await turn();
    expect([second.done, third.done]).toEqual([true, true]);
    expect(writer.stats).toMatchObject({ batches: 2, syncs: 2 });
    db.close();
  });

  it("holds the writes of every turn during an fsync and commits them together after it", async () => {
    const fsync = manualSync();
    const { writer, put, count, db } = await openWriter(fsync.sync);
    const first = settled(writer.write("a", put("a", 1)));
    await turn();
    const later = [writer.write("b", put("b", 2))];
    await turn();
    later.push(writer.write("c", put("c", 3)));
    await turn();
    expect(count()).toBe(1); // b and c wait for the fsync under way
    fsync.calls[0]?.resolve();
    await turn();
    expect(first.done).toBe(true);
    expect(count()).toBe(3);
    expect(writer.stats).toMatchObject({ batches: 2, writes: 3 }); // one transaction for b and c
    fsync.calls[1]?.resolve();
    await Promise.all(later);
    expect(writer.stats).toMatchObject({ batches: 2, syncs: 2 });
    db.close();
  });

  it("rejects the writes an fsync covered when it fails, and keeps working", async () => {
    const fsync = manualSync();
    const { writer, put, db } = await openWriter(fsync.sync);
    const lost = writer.write("a", put("a", 1));
    await turn();
    fsync.calls[0]?.reject(new Error("EIO"));
    await expect(lost).rejects.toThrow("EIO");
    const next = writer.write("b", put("b", 2));
    await turn();
    fsync.calls[1]?.resolve();
    await expect(next).resolves.toBeUndefined();
    db.close();
  });

  it("keeps syncing after a batch that held only detached writes (regression: later saves hung)", async () => {
    const { writer, put, db } = await openWriter();
    writer.writeDetached("used", put("used", 1));
    await turn();
    await expect(writer.write("a", put("a", 1))).resolves.toBeUndefined();
    db.close();
  });

  it("writes a coalesced key once, with its last value, and resolves every caller", async () => {
    const { writer, put, db } = await openWriter();
    await Promise.all([1, 2, 3].map((v) => writer.write("same", put("same", v))));
    expect(writer.stats.writes).toBe(1);
    expect(db.prepare("select v from t where k = 'same'").get()).toEqual({ v: 3 });
    db.close();
  });

  it("rejects exactly the writes of a failed batch, rolls it back, and stays usable", async () => {
    const { writer, put, count, db } = await openWriter();
    const failed = [writer.write("a", put("a", 1)), writer.write("bad", put("bad", null))];
    writer.writeDetached("detached", put("detached", 1));
    const results = await Promise.allSettled(failed);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(count()).toBe(0);
    await writer.write("b", put("b", 2));
    expect(count()).toBe(1);
    expect(writer.stats).toEqual({ batches: 1, writes: 1, failedBatches: 1, syncs: 1 });
    db.close();
  });

  it("commits and syncs pending writes on close and refuses writes after it", async () => {
    const { writer, put, count, db } = await openWriter();
    const pending = writer.write("a", put("a", 1));
    await writer.close();
    expect(count()).toBe(1);
    await expect(pending).resolves.toBeUndefined();
    await expect(writer.write("b", put("b", 2))).rejects.toThrow(/closed/);
    db.close();
  });
});

describe("sqlite: store writes", () => {
  const temp = useTempStores();

  it("rejects only the save whose record is not JSON; the others of its turn commit", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    const good = makeExecution({ status: "completed" });
    const bad = makeExecution({ status: "completed", result: { value: 10n } });
    const results = await Promise.allSettled([store.executions.save(good), store.executions.save(bad)]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected"]);
    expect(await store.executions.get(good.record.id)).toEqual(good);
    expect(await store.executions.get(bad.record.id)).toBeUndefined();
  });

  it("shares one commit among the saves of one turn", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    await Promise.all(Array.from({ length: 50 }, () => store.executions.save(makeExecution())));
    expect(store.groupCommitStats.batches).toBe(1);
  });

  it("flushes pending saves on close: they are there after reopening", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    const execution = makeExecution();
    const saved = store.executions.save(execution);
    await store.close();
    await saved;
    expect(await temp.open({ dataDir }).executions.get(execution.record.id)).toEqual(execution);
  });

  it("refuses saves and fails ping after close", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    await store.close();
    await expect(store.executions.save(makeExecution())).rejects.toThrow(/closed/);
    expect(await store.ping()).toBe(false);
  });

  it("writes a key's last use at most once per interval, and never backwards", async () => {
    const clock = new ManualClock(T0);
    const store = temp.open({ dataDir: await temp.dataDir(), clock });
    const key = makeKey();
    await store.keys.insert(key);
    const lastUsedAt = async () => {
      await store.executions.save(makeExecution()); // rides the same batch: flushes it
      return (await store.keys.findById(key.id))?.lastUsedAt;
    };
    store.keys.markUsed(key.id, isoTimestamp(T0));
    expect(await lastUsedAt()).toBe(isoTimestamp(T0));
    clock.advance(MARK_USED_INTERVAL_MS - 1);
    store.keys.markUsed(key.id, isoTimestamp(T0 + 10_000));
    expect(await lastUsedAt()).toBe(isoTimestamp(T0));
    clock.advance(1);
    store.keys.markUsed(key.id, isoTimestamp(T0 - 5000));
    expect(await lastUsedAt()).toBe(isoTimestamp(T0));
    clock.advance(MARK_USED_INTERVAL_MS);
    store.keys.markUsed(key.id, isoTimestamp(T0 + 60_000));
    expect(await lastUsedAt()).toBe(isoTimestamp(T0 + 60_000));
  });

  // A client hammering with a revoked key must not cost a write per request (audit 26, dashboard #2).
  it("writes a dead key's last refused use at most once per interval, apart from its last use", async () => {
    const clock = new ManualClock(T0);
    const store = temp.open({ dataDir: await temp.dataDir(), clock });
    const key = makeKey({ revokedAt: isoTimestamp(T0) });
    await store.keys.insert(key);
    const stored = async () => {
      await store.executions.save(makeExecution()); // rides the same batch: flushes it
      const found = await store.keys.findById(key.id);
      return [found?.lastUsedAt, found?.lastRefusedAt];
    };
    store.keys.markUsed(key.id, isoTimestamp(T0));
    store.keys.markRefusedUse(key.id, isoTimestamp(T0 + 1));
    expect(await stored()).toEqual([isoTimestamp(T0), isoTimestamp(T0 + 1)]);
    clock.advance(MARK_USED_INTERVAL_MS - 1);
    for (let i = 2; i < 100; i++) store.keys.markRefusedUse(key.id, isoTimestamp(T0 + i));
    expect(await stored()).toEqual([isoTimestamp(T0), isoTimestamp(T0 + 1)]);
    clock.advance(1);
    store.keys.markRefusedUse(key.id, isoTimestamp(T0 + 60_000));
    expect(await stored()).toEqual([isoTimestamp(T0), isoTimestamp(T0 + 60_000)]);
  });

  it("prunes limit counters of windows that ended over a day ago", async () => {
    const dataDir = await temp.dataDir();
    const store = temp.open({ dataDir });
    const windows = [
      { limit: 5, windowSeconds: 60 },
      { limit: 50, windowSeconds: 86_400 },
    ];
    await store.limiter.consume("old", windows, T0);
    const db = new Database(join(dataDir, DEFAULT_DATABASE_FILE), { readonly: true });
    const buckets = () =>
      db.prepare("select distinct bucket from limit_counters order by bucket").pluck().all();
    await store.limiter.consume("new", windows, T0 + 86_400_000);
    expect(buckets()).toEqual(["new", "old"]);
    await store.limiter.consume("new", windows, T0 + 3 * 86_400_000);
    expect(buckets()).toEqual(["new"]);
    db.close();
  });
});
