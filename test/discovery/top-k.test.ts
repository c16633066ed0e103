import { describe, expect, it } from "vitest";
import { PostingList } from "../../src/core/discovery/posting-list.js";
import { topK, topKWithin } from "../../src/core/discovery/top-k.js";

describe("topK", () => {
  const byValueThenIndex = (values: number[]) => (a: number, b: number) =>
    (values[a] ?? 0) !== (values[b] ?? 0) ? (values[a] ?? 0) > (values[b] ?? 0) : a < b;

  it("returns the k best candidates, best first, as a full sort would", () => {
    const values = Array.from({ length: 500 }, (_, index) => (index * 7919) % 101);
    const candidates = values.map((_, index) => index);
    const isBetter = byValueThenIndex(values);
    const expected = [...candidates].sort((a, b) => (isBetter(a, b) ? -1 : 1)).slice(0, 10);
    expect(topK(candidates, candidates.length, 10, isBetter)).toEqual(expected);
  });

  it("considers only the first `count` candidates and handles k beyond them", () => {
    const values = [5, 9, 1, 7];
    expect(topK(Int32Array.from([0, 1, 2, 3]), 3, 10, byValueThenIndex(values))).toEqual([1, 0, 2]);
    expect(topK([0, 1], 2, 0, byValueThenIndex(values))).toEqual([]);
  });

  it("selects the k best of all and of the accepted ones in one pass, as two topK calls would", () => {
    const values = Array.from({ length: 500 }, (_, index) => (index * 7919) % 101);
    const candidates = values.map((_, index) => index);
    const isBetter = byValueThenIndex(values);
    const accepts = (candidate: number) => candidate % 7 === 3;
    const accepted = candidates.filter(accepts);
    expect(topKWithin(candidates, candidates.length, 10, isBetter, accepts)).toEqual({
      all: topK(candidates, candidates.length, 10, isBetter),
      within: topK(accepted, accepted.length, 10, isBetter),
    });
    expect(topKWithin(candidates, candidates.length, 0, isBetter, accepts)).toEqual({ all: [], within: [] });
  });
});

describe("PostingList", () => {
  it("grows past its initial capacity and removes by swapping", () => {
    const list = new PostingList(1);
    for (let doc = 0; doc < 10; doc += 1) list.push(doc, doc + 1);
    expect(list.length).toBe(10);
    expect(list.remove(3)).toBe(true);
    expect(list.remove(3)).toBe(false);
    const pairs = Array.from({ length: list.length }, (_, index) => [
      list.docs[index],
      list.frequencies[index],
    ]);
    expect(pairs.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))).toEqual(
      [0, 1, 2, 4, 5, 6, 7, 8, 9].map((doc) => [doc, doc + 1]),
    );
  });

  it("saturates frequencies at the Uint16 maximum instead of wrapping", () => {
    const list = new PostingList();
    list.push(0, 70_000);
    expect(list.frequencies[0]).toBe(0xffff);
  });
});
