import { createHash } from "node:crypto";
import { decodeCursor, encodeCursor, invalidCursor } from "../cursor.js";
import type { KeyPageQuery, KeyStore } from "../ports.js";
import type { ApiKey } from "./api-key.js";

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

/** Where a cursor places a page: just past a key, one way or the other. */
type Position = { after: string } | { before: string };

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
  const { id, from, listing: mark } = decodeCursor(cursor, "keys", ["id", "from", "listing"] as const);
  if (mark !== listingMark(listing)) throw invalidCursor();
  if (from === "after") return { after: id };
  if (from === "before") return { before: id };
  throw invalidCursor();
}

function cursorOf(position: Position, listing: KeyListing): string {
  const [id, from] = "after" in position ? [position.after, "after"] : [position.before, "before"];
  return encodeCursor("keys", { id, from, listing: listingMark(listing) });
}

/**
 * One page of `limit` keys of a listing, from a cursor this returned for the same
 * listing (the first page without one; any other cursor is refused, `invalid_request`):
 * keyset pages, so that a key created, revoked or edited meanwhile moves no other key onto
 * a second page or off every page. A page before is read in the opposite order and turned
 * back, so both ways hold the same keys at the same places.
 */
export async function pageOfKeys(
  store: KeyStore,
  listing: KeyListing,
  limit: number,
  cursor?: string,
  { previous: wantPrevious = true }: KeyPageOptions = {},
): Promise<KeyPage> {
  const position = cursor === undefined ? undefined : readPosition(cursor, listing);
  const backwards = position !== undefined && "before" in position;
  const from = position && ("after" in position ? position.after : position.before);
  const reversed = { ...listing, descending: !listing.descending };
  const read = await store.listPage({
    ...(backwards ? reversed : listing),
    after: from,
    limit: limit + 1,
  });
  // Keys are revoked, never deleted: a cursor naming no key was not made here.
  if (read.length === 0 && from !== undefined && (await store.findById(from)) === undefined) {
    throw invalidCursor();
  }
  const more = read.length > limit;
  const keys = read.slice(0, limit);
  if (backwards) keys.reverse();
  const first = keys[0]?.id ?? from;
  const last = keys.at(-1)?.id ?? from;
  // Whether any key lies past `id` one way: one row, not a count.
  const anyPast = async (id: string | undefined, query: KeyListing) =>
    id !== undefined && (await store.listPage({ ...query, after: id, limit: 1 })).length > 0;
  const hasBefore = backwards ? more : wantPrevious && from !== undefined && (await anyPast(first, reversed));
  const hasAfter = backwards ? await anyPast(last, listing) : more;
  return {
    keys,
    previous: hasBefore && first !== undefined ? cursorOf({ before: first }, listing) : null,
    next: hasAfter && last !== undefined ? cursorOf({ after: last }, listing) : null,
  };
}
