import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.js";
import type { UsageCount, UsageStore } from "../../src/core/ports.js";
import { UsageRecorder } from "../../src/core/usage/usage-recorder.js";
import { useTempStores } from "../store/support/temp-store.js";

const MINUTE = Date.UTC(2026, 10, 22, 12, 0);

describe("UsageRecorder", () => {
  const temp = useTempStores();
  let recorder: UsageRecorder | undefined;
  afterEach(async () => {
    await recorder?.stop();
    recorder = undefined;
  });

  const series = (usage: UsageStore, keyId: string) =>
    usage.series({
      keyId,
      fromSeconds: MINUTE / 1000 - 3600,
      toSeconds: MINUTE / 1000 + 3600,
      bucketSeconds: 60,
    });

  it("writes nothing until a flush, then every count of every minute in one batch", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    const batches: UsageCount[][] = [];
    const usage: UsageStore = {
      add: (counts) => {
        batches.push(counts);
        return store.usage.add(counts);
      },
      series: (query) => store.usage.series(query),
      deleteBefore: (seconds) => store.usage.deleteBefore(seconds),
    };
    recorder = new UsageRecorder(usage, silentLogger);
    recorder.record("key_a", "accepted", MINUTE + 1000);
    recorder.record("key_a", "limited", MINUTE + 2000);
    recorder.record("key_a", "refused", MINUTE + 2500);
    recorder.record("key_a", "accepted", MINUTE + 61_000);
    // A request stamped in an earlier minute after the key moved on still counts there.
    recorder.record("key_a", "accepted", MINUTE + 59_000);
    recorder.record("key_b", "accepted", MINUTE + 3000);
    expect(await series(usage, "key_a")).toEqual([]);
    await recorder.flush();
    expect(batches).toHaveLength(1);
    expect(await series(usage, "key_a")).toEqual([
      { start: MINUTE / 1000, accepted: 2, limited: 1, refused: 1 },
      { start: MINUTE / 1000 + 60, accepted: 1, limited: 0, refused: 0 },
    ]);
    expect(await series(usage, "key_b")).toEqual([
      { start: MINUTE / 1000, accepted: 1, limited: 0, refused: 0 },
    ]);
    await recorder.flush();
    expect(batches).toHaveLength(1);
  });

  it("keeps a batch the store refused and writes it with the next flush", async () => {
    const store = temp.open({ dataDir: await temp.dataDir() });
    let failNext = true;
    const usage: UsageStore = {
      add: async (counts) => {
        if (failNext) {
          failNext = false;
          throw new Error("disk full");
        }
        await store.usage.add(counts);
      },
      series: (query) => store.usage.series(query),
      deleteBefore: (seconds) => store.usage.deleteBefore(seconds),
    };
    recorder = new UsageRecorder(usage, silentLogger);
    recorder.record("key_a", "accepted", MINUTE);
    await recorder.flush();
    recorder.record("key_a", "accepted", MINUTE);
    await recorder.flush();
    expect(await series(usage, "key_a")).toEqual([
      { start: MINUTE / 1000, accepted: 2, limited: 0, refused: 0 },
    ]);
  });
});
