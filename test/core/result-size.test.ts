import { describe, expect, it } from "vitest";
import { resultFault } from "../../src/core/execution/result-size.js";

/** Whether the walk judges `value` larger than `maxBytes` of JSON. */
const exceedsJsonSize = (value: unknown, maxBytes: number) =>
  resultFault(value, maxBytes)?.kind === "too_large";

describe("resultFault: the size of a result", () => {
  it("counts a value's JSON about as JSON.stringify would", () => {
    const value = { text: "a".repeat(1000), list: [1, 2, 3], nested: { ok: true, none: null } };
    const bytes = JSON.stringify(value).length;
    expect(exceedsJsonSize(value, bytes * 2)).toBe(false);
    expect(exceedsJsonSize(value, bytes / 2)).toBe(true);
    expect(exceedsJsonSize("x".repeat(100), 50)).toBe(true);
    expect(exceedsJsonSize(42, 50)).toBe(false);
  });

  it("counts a string's bytes of UTF-8 JSON: escapes, multi-byte characters, surrogate pairs", () => {
    for (const text of [
      "\u0001".repeat(1000), // six bytes each: \u0001
      "中".repeat(1000), // three bytes of UTF-8
      "😀".repeat(500), // a surrogate pair: four bytes
      '"\\\n\t'.repeat(300), // two bytes each
      "\ud800x".repeat(200), // a lone surrogate is escaped: six bytes
      "é plain ascii",
    ]) {
      const bytes = Buffer.byteLength(JSON.stringify(text));
      expect(exceedsJsonSize(text, bytes), JSON.stringify(text.slice(0, 4))).toBe(false);
      expect(exceedsJsonSize(text, bytes - 1), JSON.stringify(text.slice(0, 4))).toBe(true);
    }
  });

  it("judges a result of many control characters by its JSON, six times its length", () => {
    const result = { value: Array.from({ length: 55 }, () => "\u0001".repeat(140_000)) };
    // 7.7 million characters, 46 MB of JSON: over the 8 MiB limit.
    expect(exceedsJsonSize(result, 8 * 1024 * 1024)).toBe(true);
  });

  it("stops at the limit: a value sharing its parts 2^60 times is judged at once", () => {
    let value: unknown = "shared";
    for (let i = 0; i < 60; i++) value = { left: value, right: [value] };
    expect(exceedsJsonSize(value, 1024 * 1024)).toBe(true);
  });

  it("counts only a value's own properties", () => {
    const inherited = Object.create({ big: "x".repeat(10_000) }) as object;
    expect(exceedsJsonSize(inherited, 100)).toBe(false);
  });
});

describe("resultFault: a value JSON does not carry faithfully", () => {
  const fault = (value: unknown) => resultFault(value, 1024 * 1024);

  it("names where and what: a bigint, a function, a symbol, NaN, a Map, a class instance", () => {
    class Pool {}
    expect(fault({ rows: [{ n: 1 }, { n: 10n }] })).toEqual({
      kind: "not_json",
      path: "result.rows[1].n",
      found: "a bigint; return it as a number or a string",
    });
    expect(fault({ "a b": () => 1 })).toMatchObject({ path: 'result["a b"]', found: "a function" });
    expect(fault({ s: Symbol("s") })).toMatchObject({ found: "a symbol" });
    expect(fault({ n: Number.POSITIVE_INFINITY })).toMatchObject({
      found: "Infinity, which JSON writes as null",
    });
    expect(fault({ m: new Set([1]) })).toMatchObject({ found: "an instance of Set" });
    expect(fault({ p: new Pool() })).toMatchObject({ found: "an instance of Pool" });
    expect(fault({ list: [1, undefined] })).toMatchObject({ path: "result.list[1]" });
  });

  it("finds a cycle, and tells it from a part shared twice", () => {
    const loop: Record<string, unknown> = {};
    loop.again = { back: loop };
    expect(fault({ loop })).toMatchObject({
      path: "result.loop.again.back",
      found: "a cycle: the value contains itself",
    });
    const shared = { x: 1 };
    expect(fault({ a: shared, b: [shared] })).toBeUndefined();
  });

  it("finds a cycle deep in a value, and passes a deep value without one, naming the full path", () => {
    const top: Record<string, unknown> = {};
    let node = top;
    for (let depth = 0; depth < 100; depth++) {
      const next: Record<string, unknown> = {};
      node.child = next;
      node = next;
    }
    expect(fault(top)).toBeUndefined();
    node.back = top.child;
    const found = fault(top);
    expect(found).toMatchObject({ kind: "not_json", found: "a cycle: the value contains itself" });
    expect((found as { path: string }).path).toBe(`result${".child".repeat(100)}.back`);
    node.back = [1, 2n];
    expect(fault(top)).toMatchObject({ path: `result${".child".repeat(100)}.back[1]` });
  });

  it("passes plain JSON data, a Date, null-prototype objects and a member left undefined", () => {
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(
      fault({ a: [1, "x", null, true, { b: {} }], when: new Date(), bare, gone: undefined }),
    ).toBeUndefined();
  });
});
