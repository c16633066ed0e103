import type { KeyOrder } from "../../core/keys/key-listing.js";
import { integer } from "./format.js";

/** Which keys come first in the key list's order, as its pager says it. */
export function keyOrderInWords(order: KeyOrder, ascending: boolean): string {
  switch (order) {
    case "created":
      return ascending ? "oldest first" : "newest first";
    case "last_used":
      // A key never used sorts before every time (`keyOrderValue`).
      return ascending ? "never used first, then least recently used" : "most recently used first";
    default:
      return `by ${order}, ${ascending ? "A to Z" : "Z to A"}`;
  }
}

/** One page of a tab of the key list: how many keys it shows, of how many, in which order, and whether pages lie either side. */
export interface KeyListPageShape {
  shown: number;
  inTab: number;
  perPage: number;
  order: KeyOrder;
  ascending: boolean;
  hasPrevious: boolean;
  hasNext: boolean;
}

/**
 * What the key list's pager says: how many of the tab's keys the page shows, which ones
 * (the order: "50 of 60 keys shown" alone does not say whether they are the newest or the
 * first by name), and where the others are. From the first or the last page the others'
 * number is known (the tab's count less this page's); between, only that they lie either side.
 */
export function keysShownInWords(page: KeyListPageShape): string {
  const { shown, inTab, perPage, hasPrevious, hasNext } = page;
  const said = `${integer(shown)} of ${integer(inTab)} keys shown, ${keyOrderInWords(page.order, page.ascending)}`;
  if (!hasPrevious && !hasNext) return said;
  if (hasPrevious && hasNext) return `${said}; the others are on the pages before and after`;
  const others = inTab - shown;
  // The count is read before the page: a key made in between can leave no number to say.
  if (others < 1) return `${said}; the others are on ${hasNext ? "the next pages" : "the pages before"}`;
  const many = Math.ceil(others / perPage);
  const pages = many === 1 ? "page" : `${integer(many)} pages`;
  const where = hasNext ? `the next ${pages}` : `the ${pages} before`;
  const who = others === 1 ? "the other one is" : `the other ${integer(others)} are`;
  return `${said}; ${who} on ${where}`;
}
