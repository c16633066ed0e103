import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/core/clock.js";
import { makeKey, T0, uniqueId } from "./contract/fixtures.js";
import { StoreChild } from "./support/store-child.js";
import { useTempStores } from "./support/temp-store.js";

const MINUTE = [{ limit: 60, windowSeconds: 60 }];

// Real second processes (node --import tsx) on the same data dir: what two replicas of
// `skillport serve` on one machine would do.
describe("sqlite: a second process on the same data dir", () => {
  const temp = useTempStores();

  const withChild = async (test: (child: StoreChild, dataDir: string) => Promise<void>) => {
    const dataDir = await temp.dataDir();
    const child = await StoreChild.start(dataDir);
    try {
      await test(child, dataDir);
    } finally {
      await child.stop();
    }
  };

  it("sees keys inserted and revoked by the other process on the very next lookup", async () => {
    await withChild(async (child, dataDir) => {
      const store = temp.open({ dataDir });
      const key = makeKey();
      await child.call({ action: "insertKey", key });
      expect(await store.keys.findByHash(key.hash)).toEqual(key);
      await store.keys.revoke(key.id, isoTimestamp(T0));
      const seen = await child.call<{ revokedAt: string | null }>({ action: "findByHash", hash: key.hash });
      expect(seen.revokedAt).toBe(isoTimestamp(T0));
    });
  });

  it("counts requests of both processes in one limit", async () => {
    await withChild(async (child, dataDir) => {
      const store = temp.open({ dataDir });
      const bucket = uniqueId("bucket");
      for (let i = 0; i < 40; i++) await store.limiter.consume(bucket, MINUTE, T0);
      const allowed = await child.call<number>({
        action: "consume",
        bucket,
        windows: MINUTE,
        nowMs: T0,
        attempts: 100,
        pauseMs: 0,
      });
      expect(allowed).toBe(20);
    });
  });

  it("allows exactly 60 in total when both processes consume at the same time", async () => {
    await withChild(async (child, dataDir) => {
      const store = temp.open({ dataDir });
      const bucket = uniqueId("bucket");
      const request = {
        action: "consume",
        bucket,
        windows: MINUTE,
        nowMs: T0,
        attempts: 100,
        pauseMs: 1,
      } as const;
      const inChild = child.call<number>(request);
      let inParent = 0;
      for (let i = 0; i < 100; i++) {
        if ((await store.limiter.consume(bucket, MINUTE, T0)).allowed) inParent++;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const childAllowed = await inChild;
      expect(inParent + childAllowed).toBe(60);
      // Both got some: the two processes really did interleave.
      expect(inParent).toBeGreaterThan(0);
      expect(childAllowed).toBeGreaterThan(0);
    });
  });

  it("never over-counts when both processes consume back to back, without pauses", async () => {
    await withChild(async (child, dataDir) => {
      const store = temp.open({ dataDir });
      const bucket = uniqueId("bucket");
      const windows = [
        { limit: 1000, windowSeconds: 60 },
        { limit: 5000, windowSeconds: 86_400 },
      ];
      const request = { action: "consume", bucket, windows, nowMs: T0, attempts: 1500, pauseMs: 0 } as const;
      const inChild = child.call<number>(request);
      let inParent = 0;
      for (let i = 0; i < 1500; i++) {
        if ((await store.limiter.consume(bucket, windows, T0)).allowed) inParent++;
      }
      expect(inParent + (await inChild)).toBe(1000);
      const after = await store.limiter.peek(bucket, windows, T0);
      expect(after.windows.map((window) => window.remaining)).toEqual([0, 4000]);
    });
  });

  it("lets four processes open and migrate a new data dir at the same time", async () => {
    const dataDir = await temp.dataDir();
    const children = await Promise.all(Array.from({ length: 4 }, () => StoreChild.start(dataDir)));
    await Promise.all(children.map((child) => child.stop()));
    const store = temp.open({ dataDir });
    expect(await store.ping()).toBe(true);
  });
});
