import { createHash } from "node:crypto";
import { decodeCursor, encodeCursor, invalidCursor } from "../cursor.js";
import type { KeyPageQuery, KeyStore } from "../ports.js";
import type { ApiKey } from "./api-key.js";
import { isKeyOrderValue, type KeyPlace, keyOrderValue } from "./key-listing.js";

/** A listing's filters and order: a store query but for its position and length. */
export type KeyListing = Omit<KeyPageQuery, "after" | "limit">;

/** One page of keys, and the cursors of the pages before and after it (null at either end). */
export interface KeyPage {
  keys: ApiKey[];
  previous: string | null;
  next: string | null;
}

export interface KeyPageOptions {
  /**
   * Whether to find out if a page lies before this one (default true): one more read of the
   * store for a page reached going forward, which a reader that only goes forward (`keys
   * list`) does without. Without it, `previous` is null.
   */
  previous?: boolean;
}

/** Where a cursor places a page: just past a place in the order, one way or the other. */
interface Position {
  from: "after" | "before";
  place: KeyPlace;
}

/**
 * Which listing a cursor belongs to: its search, status and order, as a short digest (the
 * search may be long). A position in one order is no place in another: a cursor carried
 * over to another sort, tab or search is refused, not read as a page of it.
 */
function listingMark(listing: KeyListing): string {
  const { search, status, order, descending } = listing;
  return createHash("sha256")
    .update(JSON.stringify([search, status ?? null, order, descending]))
    .digest("base64url")
    .slice(0, 16);
}

function readPosition(cursor: string, listing: KeyListing): Position {
  const fields = ["id", "value", "from", "listing"] as const;
  const { id, value, from, listing: mark } = decodeCursor(cursor, "keys", fields);
  if (mark !== listingMark(listing) || !isKeyOrderValue(listing.order, value)) throw invalidCursor();
  if (from !== "after" && from !== "before") throw invalidCursor();
  return { from, place: { value, id } };
}

function cursorOf({ from, place }: Position, listing: KeyListing): string {
  return encodeCursor("keys", { id: place.id, value: place.value, from, listing: listingMark(listing) });
}

/**
 * One page of `limit` keys of a listing, from a cursor this returned for the same
 * listing (the first page without one; a cursor of another listing, or holding no place
 * in this one, is refused, `invalid_request`). Keyset pages: a cursor holds the place (value in
 * the order, id) of the key a page ended at, so that a key created, revoked, edited or
 * used meanwhile, that one included, moves no other key onto a second page or off every
 * page, and a key no longer there still leaves its place. A page before is read in the
 * opposite order and turned back, so both ways hold the same keys at the same places.
 */
export async function pageOfKeys(
  store: KeyStore,
  listing: KeyListing,
  limit: number,
  cursor?: string,
  { previous: wantPrevious = true }: KeyPageOptions = {},
): Promise<KeyPage> {
  const position = cursor === undefined ? undefined : readPosition(cursor, listing);
  const backwards = position?.from === "before";
  const reversed = { ...listing, descending: !listing.descending };
  const read = await store.listPage({
    ...(backwards ? reversed : listing),
    after: position?.place,
    limit: limit + 1,
  });
  const more = read.length > limit;
  const keys = read.slice(0, limit);
  if (backwards) keys.reverse();
  const nowMs = Date.parse(listing.now);
  const placeOf = (key: ApiKey | undefined): KeyPlace | undefined =>
    key ? { value: keyOrderValue(listing.order, key, nowMs), id: key.id } : position?.place;
  const first = placeOf(keys[0]);
  const last = placeOf(keys.at(-1));
  // Whether any key lies past a place one way: one row, not a count.
  const anyPast = async (place: KeyPlace | undefined, query: KeyListing) =>
    place !== undefined && (await store.listPage({ ...query, after: place, limit: 1 })).length > 0;
  const hasBefore = backwards
    ? more
    : wantPrevious && position !== undefined && (await anyPast(first, reversed));
  const hasAfter = backwards ? await anyPast(last, listing) : more;
  return {
    keys,
    previous: hasBefore && first !== undefined ? cursorOf({ from: "before", place: first }, listing) : null,
    next: hasAfter && last !== undefined ? cursorOf({ from: "after", place: last }, listing) : null,
  };
}
