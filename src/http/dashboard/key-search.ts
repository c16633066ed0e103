import type { KeySearchFilter } from "../../core/keys/key-listing.js";
import { holdsSecretRun, secretIn } from "../../core/keys/secret.js";

/**
 * What the key search box was given. An administrator asking "which key is this?" pastes
 * a secret (alone or with what surrounded it where it was copied from), or the masked form
 * a listing shows (`sk_live_AbCd…wxyz`); neither is a substring of any one field, so each
 * gets a search of its own. A secret, or text that
 * looks like part of one, is never shown back on the page or put into its links.
 */
export type KeySearch =
  | { kind: "all" }
  | { kind: "secret"; secret: string }
  | { kind: "masked"; prefix: string; last4: string }
  | { kind: "text"; needle: string; shown: string | undefined };

/** `sk_live_AbCd…wxyz`, with an ellipsis or three dots, as the dashboard and the CLI print a key. */
const MASKED = /^(sk_[a-z]+_[0-9A-Za-z]{4})(?:…|\.\.\.)([0-9A-Za-z]{4})$/;
/** A key's prefix as every listing shows it (`sk_live_AbCd`), or the start of one. */
const PREFIX_OR_LESS = /^sk_[a-z]+_[0-9a-z]{0,4}$/i;

export function keySearch(term: string): KeySearch {
  if (term === "") return { kind: "all" };
  const secret = secretIn(term);
  if (secret) return { kind: "secret", secret };
  const masked = MASKED.exec(term);
  if (masked) return { kind: "masked", prefix: masked[1] as string, last4: masked[2] as string };
  // A key's prefix is public and may be searched and shown; anything longer that starts
  // like a secret may be the rest of one.
  const partOfSecret = holdsSecretRun(term) && !PREFIX_OR_LESS.test(term);
  return { kind: "text", needle: term.toLowerCase(), shown: partOfSecret ? undefined : term };
}

/**
 * What the store is asked for a search: `undefined` for a secret, whose key (when it has
 * one) is found by its hash and never by a listing.
 */
export function storeSearchOf(search: KeySearch): KeySearchFilter | undefined {
  switch (search.kind) {
    case "all":
      return { kind: "all" };
    case "secret":
      return undefined;
    case "masked":
      return { kind: "masked", prefix: search.prefix, last4: search.last4 };
    case "text":
      return { kind: "text", text: search.needle };
  }
}

/** The term as the page may show it, in its search box and links: never a secret. */
export function shownTerm(search: KeySearch, term: string): string {
  if (search.kind === "secret") return "";
  if (search.kind === "text") return search.shown ?? "";
  return term;
}
