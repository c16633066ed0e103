import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChangeSignal } from "../../src/store/sqlite/change-signal.js";
import { useTempStores } from "./support/temp-store.js";

describe("sqlite: change signal", () => {
  const temp = useTempStores();
  const open: ChangeSignal[] = [];
  afterEach(() => {
    for (const signal of open.splice(0)) signal.close();
  });

  /** Two signals on one file, as two processes sharing a data dir hold them. */
  const openPair = async (prepare?: (path: string) => void) => {
    const path = join(await temp.dataDir(), "store.db-keys");
    prepare?.(path);
    const writer = new ChangeSignal(path);
    const reader = new ChangeSignal(path);
    open.push(writer, reader);
    return { writer, reader };
  };

  it("holds its version until another holder announces, then changes it once", async () => {
    const pair = await openPair();
    const first = await pair.reader.version();
    expect(await pair.reader.version()).toBe(first);
    pair.writer.announce();
    const second = await pair.reader.version();
    expect(second).not.toBe(first);
    expect(await pair.reader.version()).toBe(second);
  });

  it("sees every one of many changes made back to back (no clock-tick blind spot)", async () => {
    const pair = await openPair();
    let last = await pair.reader.version();
    for (let i = 0; i < 1_000; i++) {
      pair.writer.announce();
      const now = await pair.reader.version();
      expect(now).not.toBe(last);
      last = now;
    }
  });

  it("shares one read among the calls of a turn, made after the last of them", async () => {
    const pair = await openPair();
    const before = await pair.reader.version();
    // A call before the change and one after it, in one turn: both must see it, since the
    // second request arrived after the change (a revoked key is refused on the very next one).
    const early = pair.reader.version();
    pair.writer.announce();
    const late = pair.reader.version();
    expect(late).toBe(early);
    expect(await late).not.toBe(before);
  });

  it("fails a read pending when it is closed, rather than read the descriptor (maybe another file's by then)", async () => {
    const pair = await openPair();
    const pending = pair.reader.version();
    pair.reader.close();
    await expect(pending).rejects.toThrow(/closed/);
    expect(() => pair.reader.announce()).toThrow(/closed/);
  });

  it.each([
    ["empty", ""],
    ["shorter than a token", "abc"],
    ["left by an older build", "12345678"],
  ])("works on an existing file that is %s", async (_case, content) => {
    const pair = await openPair((path) => writeFileSync(path, content));
    const before = await pair.reader.version();
    pair.writer.announce();
    expect(await pair.reader.version()).not.toBe(before);
  });
});
