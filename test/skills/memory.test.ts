import { describe, expect, it } from "vitest";
import { memoryDelete, memoryGet, memoryList, memorySet } from "../../skills/memory.js";
import { fakeContext } from "./fake-context.js";
import { expectSkillError, runSkill } from "./run-skill.js";

describe("memory skills", () => {
  it("stores a JSON value and reads it back", async () => {
    const ctx = fakeContext();
    const value = { language: "fr", units: ["metric"], nested: { on: true, n: null } };
    expect(await runSkill(memorySet, { key: "prefs", value }, ctx)).toEqual({
      key: "prefs",
      stored: true,
      replaced: false,
      bytes: Buffer.byteLength(JSON.stringify(value)),
    });
    const read = await runSkill(memoryGet, { key: "prefs" }, ctx);
    expect(read).toMatchObject({ key: "prefs", found: true, value });
    expect(typeof read.updated_at).toBe("string");
  });

  it("says when a value is replaced", async () => {
    const ctx = fakeContext();
    await runSkill(memorySet, { key: "k", value: 1 }, ctx);
    expect((await runSkill(memorySet, { key: "k", value: 2 }, ctx)).replaced).toBe(true);
    expect((await runSkill(memoryGet, { key: "k" }, ctx)).value).toBe(2);
  });

  // It read the key, then wrote it: two sets of a new key running at once both read
  // nothing and both said replaced=false. `replaced` now comes from the write itself.
  it("tells exactly one of two sets of a new key racing each other that it made the key", async () => {
    const ctx = fakeContext();
    const answers = await Promise.all([
      runSkill(memorySet, { key: "k", value: 1 }, ctx),
      runSkill(memorySet, { key: "k", value: 2 }, ctx),
    ]);
    expect(answers.map((answer) => answer.replaced).sort()).toEqual([false, true]);
  });

  it("stores null and false as values, not as absence", async () => {
    const ctx = fakeContext();
    await runSkill(memorySet, { key: "nothing", value: null }, ctx);
    expect(await runSkill(memoryGet, { key: "nothing" }, ctx)).toMatchObject({ found: true, value: null });
  });

  it("answers found=false for a missing key", async () => {
    expect(await runSkill(memoryGet, { key: "absent" })).toEqual({
      key: "absent",
      found: false,
      value: null,
      updated_at: null,
    });
  });

  it("refuses values over 64 KiB with the size in the message", async () => {
    await expectSkillError(
      memorySet,
      { key: "big", value: "x".repeat(70_000) },
      /70002 bytes as JSON; the limit is 65536/,
    );
  });

  it("refuses a missing value and keys with control characters", () => {
    expect(memorySet.params.safeParse({ key: "k" }).success).toBe(false);
    expect(memorySet.params.safeParse({ key: "a\nb", value: 1 }).success).toBe(false);
    expect(memoryGet.params.safeParse({ key: "" }).success).toBe(false);
  });

  it("refuses a key with a lone surrogate, which the store cannot keep", () => {
    expect(memorySet.params.safeParse({ key: "k\ud800", value: 1 }).success).toBe(false);
    expect(memoryGet.params.safeParse({ key: "k\udc00x" }).success).toBe(false);
    expect(memorySet.params.safeParse({ key: "k🔑", value: 1 }).success).toBe(true);
  });

  it("deletes a key and says whether it existed", async () => {
    const ctx = fakeContext();
    await runSkill(memorySet, { key: "k", value: 1 }, ctx);
    expect(await runSkill(memoryDelete, { key: "k" }, ctx)).toEqual({ key: "k", deleted: true });
    expect(await runSkill(memoryDelete, { key: "k" }, ctx)).toEqual({ key: "k", deleted: false });
    expect((await runSkill(memoryGet, { key: "k" }, ctx)).found).toBe(false);
  });

  it("lists keys by prefix with a limit", async () => {
    const ctx = fakeContext();
    for (const key of ["user:ann:a", "user:ann:b", "user:bob:a", "other"]) {
      await runSkill(memorySet, { key, value: key }, ctx);
    }
    const result = await runSkill(memoryList, { prefix: "user:ann:" }, ctx);
    expect((result.keys as { key: string }[]).map((entry) => entry.key)).toEqual([
      "user:ann:a",
      "user:ann:b",
    ]);
    expect(result.count).toBe(2);
    expect((await runSkill(memoryList, { limit: 3 }, ctx)).count).toBe(3);
  });
});

describe("memory.set, a number too large for a double", () => {
  // Regression: 1e400 arrives as Infinity, which JSON.stringify stored as null, reporting success.
  it("is refused rather than stored changed", async () => {
    const ctx = fakeContext();
    await expectSkillError(
      memorySet,
      { key: "big", value: { list: [Number.POSITIVE_INFINITY, 2] } },
      /too large to store/,
      ctx,
    );
    expect((await runSkill(memoryGet, { key: "big" }, ctx)).found).toBe(false);
  });
});

describe("memory.list, past one page", () => {
  it("hands back next_after until the last page, which has none", async () => {
    const ctx = fakeContext();
    for (const key of ["k1", "k2", "k3", "k4", "k5"]) await runSkill(memorySet, { key, value: 1 }, ctx);
    const first = await runSkill(memoryList, { limit: 2 }, ctx);
    expect(first).toMatchObject({ count: 2, next_after: "k2" });
    const second = await runSkill(memoryList, { limit: 2, after: first.next_after }, ctx);
    expect((second.keys as { key: string }[]).map((entry) => entry.key)).toEqual(["k3", "k4"]);
    const last = await runSkill(memoryList, { limit: 2, after: second.next_after }, ctx);
    expect(last).toMatchObject({ count: 1, next_after: null });
    expect((await runSkill(memoryList, { limit: 5 }, ctx)).next_after).toBeNull();
  });
});
