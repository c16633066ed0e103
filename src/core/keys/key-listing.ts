import { isoTimestamp } from "../clock.js";
import { type ApiKey, KEY_STATUSES, type KeyStatus, keyStatus, PLANS, SCOPES } from "./api-key.js";

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

/**
 * What a key is ordered by in `order` at `nowMs`, as text compared by code point: what
 * each store's order expression gives for it (a key never used is "", before every time).
 */
export function keyOrderValue(order: KeyOrder, key: ApiKey, nowMs: number): string {
  switch (order) {
    case "created":
      return key.createdAt;
    case "name":
      return nameOrderValue(key.name);
    case "last_used":
      return key.lastUsedAt ?? "";
    case "status":
      return keyStatus(key, nowMs);
    case "scope":
      return key.scope;
    case "plan":
      return key.plan;
  }
}

/** A time as keys hold it: ISO 8601 UTC to the millisecond, year 1000 on (PostgreSQL reads it as a timestamptz). */
const isStoredTime = (text: string) =>
  /^[1-9]\d{3}-/.test(text) && Number.isFinite(Date.parse(text)) && isoTimestamp(Date.parse(text)) === text;

/**
 * Whether `text` is a value `keyOrderValue` can give for `order`: a place in a listing
 * read from a cursor is checked here before a store compares keys with it (a time that is
 * none would be an error in PostgreSQL, not an answer; nothing stored holds NUL).
 */
export function isKeyOrderValue(order: KeyOrder, text: string): boolean {
  switch (order) {
    case "created":
      return isStoredTime(text);
    case "last_used":
      return text === "" || isStoredTime(text);
    case "status":
      return (KEY_STATUSES as readonly string[]).includes(text);
    case "scope":
      return (SCOPES as readonly string[]).includes(text);
    case "plan":
      return (PLANS as readonly string[]).includes(text);
    case "name":
      return !text.includes("\u0000");
  }
}

/** A place in a key listing: a key's value in the order (`keyOrderValue`) and its id. */
export interface KeyPlace {
  value: string;
  id: string;
}

/** The statuses a listing of one search holds, and how many keys of each. */
export type KeyCounts = Record<KeyStatus, number>;
