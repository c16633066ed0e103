import type { ApiKey, KeyStatus } from "./api-key.js";

/**
 * What a key listing may be ordered by. Each order is total: keys equal in it are ordered
 * by id, in the same direction, so that a page can continue after any key.
 */
export const KEY_ORDERS = ["created", "name", "last_used", "status", "scope", "plan"] as const;
export type KeyOrder = (typeof KEY_ORDERS)[number];

/** The fields a text search of keys looks in: what a listing shows of a key. */
export const KEY_SEARCH_FIELDS = [
  "name",
  "id",
  "owner",
  "prefix",
  "last4",
  "environment",
  "plan",
  "scope",
] as const satisfies readonly (keyof ApiKey)[];

/**
 * Which keys a listing holds: all of them, those whose shown fields hold `text` (already
 * lowercased: the match ignores case), or the one a masked key (`sk_live_AbCd…wxyz`) names.
 */
export type KeySearchFilter =
  | { kind: "all" }
  | { kind: "text"; text: string }
  | { kind: "masked"; prefix: string; last4: string };

/** A key's name as the `name` order compares it: ASCII letters lowercased, as both SQL stores' `lower` do it. */
export function nameOrderValue(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** The statuses a listing of one search holds, and how many keys of each. */
export type KeyCounts = Record<KeyStatus, number>;
