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

/** Where a cursor places a page: just past a key, one way or the other. */
type Position = { after: string } | { before: string };

function readPosition(cursor: string): Position {
  const { id, from } = decodeCursor(cursor, "keys", ["id", "from"] as const);
  if (from === "after") return { after: id };
  if (from === "before") return { before: id };
  throw invalidCursor();
}

function cursorOf(position: Position): string {
  return "after" in position
    ? encodeCursor("keys", { id: position.after, from: "after" })
    : encodeCursor("keys", { id: position.before, from: "before" });
}

/**
 * One page of `limit` keys of a listing, from a cursor this returned (the first page
 * without one): keyset pages, so that a key created, revoked or edited meanwhile moves
 * no other key onto a second page or off every page. A page before is read in the
 * opposite order and turned back, so both ways hold the same keys at the same places.
 */
export async function pageOfKeys(
  store: KeyStore,
  listing: KeyListing,
  limit: number,
  cursor?: string,
): Promise<KeyPage> {
  const position = cursor === undefined ? undefined : readPosition(cursor);
  const backwards = position !== undefined && "before" in position;
  const from = position && ("after" in position ? position.after : position.before);
  const reversed = { ...listing, descending: !listing.descending };
  const read = await store.listPage({
    ...(backwards ? reversed : listing),
    after: from,
    limit: limit + 1,
  });
  const more = read.length > limit;
  const keys = read.slice(0, limit);
  if (backwards) keys.reverse();
  const first = keys[0]?.id ?? from;
  const last = keys.at(-1)?.id ?? from;
  // Whether any key lies past `id` one way: one row, not a count.
  const anyPast = async (id: string | undefined, query: KeyListing) =>
    id !== undefined && (await store.listPage({ ...query, after: id, limit: 1 })).length > 0;
  const hasBefore = backwards ? more : from !== undefined && (await anyPast(first, reversed));
  const hasAfter = backwards ? await anyPast(last, listing) : more;
  return {
    keys,
    previous: hasBefore && first !== undefined ? cursorOf({ before: first }) : null,
    next: hasAfter && last !== undefined ? cursorOf({ after: last }) : null,
  };
}
