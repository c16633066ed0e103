import { describe, expect, it } from "vitest";
import { KEY_ORDERS } from "../../src/core/keys/key-listing.js";
import { keyOrderInWords, keysShownInWords } from "../../src/http/dashboard/key-list-words.js";

describe("what the key list's pager says", () => {
  const page = { shown: 50, inTab: 1234, perPage: 50, order: "created", ascending: false } as const;

  it("names the order of every sort, both ways", () => {
    const said = KEY_ORDERS.flatMap((order) => [keyOrderInWords(order, true), keyOrderInWords(order, false)]);
    expect(said).toEqual([
      "oldest first",
      "newest first",
      "by name, A to Z",
      "by name, Z to A",
      "never used first, then least recently used",
      "most recently used first",
      "by status, A to Z",
      "by status, Z to A",
      "by scope, A to Z",
      "by scope, Z to A",
      "by plan, A to Z",
      "by plan, Z to A",
    ]);
  });

  it("says how many others there are and on how many pages, from the first or the last page", () => {
    expect(keysShownInWords({ ...page, hasPrevious: false, hasNext: true })).toBe(
      "50 of 1,234 keys shown, newest first; the other 1,184 are on the next 24 pages",
    );
    expect(keysShownInWords({ ...page, shown: 34, hasPrevious: true, hasNext: false })).toBe(
      "34 of 1,234 keys shown, newest first; the other 1,200 are on the 24 pages before",
    );
    expect(keysShownInWords({ ...page, inTab: 51, hasPrevious: false, hasNext: true })).toBe(
      "50 of 51 keys shown, newest first; the other one is on the next page",
    );
  });

  it("says only the count and the order when the page holds the whole tab", () => {
    expect(keysShownInWords({ ...page, shown: 7, inTab: 7, hasPrevious: false, hasNext: false })).toBe(
      "7 of 7 keys shown, newest first",
    );
  });

  it("says no number it cannot know: a key made between the count and the page", () => {
    expect(keysShownInWords({ ...page, inTab: 50, hasPrevious: false, hasNext: true })).toBe(
      "50 of 50 keys shown, newest first; the others are on the next pages",
    );
  });
});
