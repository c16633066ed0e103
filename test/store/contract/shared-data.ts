import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { StoredExecution } from "../../../src/core/execution/record.js";
import type { StoreSignal } from "../../../src/core/ports.js";
import { eventually, makeExecution, makeKey, type StoreHandle, T0, uniqueId } from "./fixtures.js";

/**
 * Two stores on the same data, as two processes (replicas) see it: whatever one does, the
 * other sees at once, and what must happen once happens once across both.
 */
export function describeSharedDataContract(handle: StoreHandle): void {
  describe("two stores on the same data", () => {
    const openPair = async () => [handle.store, await handle.openAnother()] as const;

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

    it("admits exactly the limit when 100 requests race through both stores", async () => {
      const [a, b] = await openPair();
      const bucket = uniqueId("bucket");
      const windows = [
        { limit: 60, windowSeconds: 60 },
        { limit: 1000, windowSeconds: 86_400 },
      ];
      const decisions = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).limiter.consume(bucket, windows, T0)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
      expect((await a.limiter.peek(bucket, windows, T0)).windows.map((w) => w.remaining)).toEqual([0, 940]);
    });

    it("tells exactly one of 20 racing sets of a new memory key, through both stores, that it made the key", async () => {
      const [a, b] = await openPair();
      const key = uniqueId("memory");
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).memory.set("acme", key, i, isoTimestamp(T0))),
      );
      expect(answers.filter((answer) => !answer.replaced)).toHaveLength(1);
    });

    it("reads an execution the other store saved, once its save resolved", async () => {
      const [a, b] = await openPair();
      const execution = makeExecution({ status: "completed" });
      await a.executions.save(execution);
      expect(await b.executions.get(execution.record.id)).toEqual(execution);
    });

    it("gives each orphan to exactly one of two stores claiming at once", async () => {
      const [a, b] = await openPair();
      const orphans = Array.from({ length: 50 }, () =>
        makeExecution({ status: "running", runnerId: "dead" }),
      );
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

    it("gives each queued execution to exactly one of two stores taking at once", async () => {
      const [a, b] = await openPair();
      const backlog = Array.from({ length: 40 }, (_, i) =>
        makeExecution({ status: "queued", runnerId: "runner_busy", createdAt: isoTimestamp(T0 + i) }),
      );
      await Promise.all(backlog.map((execution) => a.executions.save(execution)));
      const later = isoTimestamp(T0 + 60_000);
      const running = (taken: StoredExecution): StoredExecution => ({
        ...taken,
        record: { ...taken.record, status: "running", started_at: later },
      });
      const takes = await Promise.all([
        a.executions.takeQueued("runner_a", 30, later, running),
        b.executions.takeQueued("runner_b", 30, later, running),
      ]);
      const taken = takes.flat().map((execution) => execution.record.id);
      expect(taken.sort()).toEqual(backlog.map((execution) => execution.record.id).sort());
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

    it("delivers a signal to every store on the data, the sender's included (when it has a channel)", async () => {
      const [a, b] = await openPair();
      if (!a.signals || !b.signals) {
        expect(a.signals).toBe(b.signals);
        return;
      }
      const received = { a: [] as StoreSignal[], b: [] as StoreSignal[] };
      const stopA = a.signals.subscribe((signal) => received.a.push(signal));
      const stopB = b.signals.subscribe((signal) => received.b.push(signal));
      const signal: StoreSignal = { type: "cancel", executionId: uniqueId("exe"), from: "runner_a" };
      await a.signals.publish(signal);
      const progress: StoreSignal = {
        type: "progress",
        executionId: signal.executionId,
        update: { progress: 1, total: 2, message: "x".repeat(20_000) },
        from: "runner_a",
      };
      await a.signals.publish(progress);
      await eventually(
        async () => Math.min(received.a.length, received.b.length),
        (count) => count >= 2,
      );
      expect(received.b[0]).toEqual(signal);
      // An oversized message is dropped rather than the whole signal.
      expect(received.b[1]).toEqual({ ...progress, update: { progress: 1, total: 2 } });
      expect(received.a[0]).toEqual(signal);
      stopA();
      stopB();
    });
  });
}
