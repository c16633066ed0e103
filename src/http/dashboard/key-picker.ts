import type { KeyService, KeyView } from "../../core/keys/key-service.js";
import { html, type SafeHtml } from "./html.js";

/**
 * Up to this many keys, a page's key (and owner) filter is a select of them all; past it,
 * a text field for a key's id (or an owner), as a select of thousands helps nobody and
 * reading every key on each view costs more the more keys there are.
 */
export const PICKER_KEYS = 100;

/** By name, as a select lists them. */
const BY_NAME = { search: { kind: "all" }, order: "name", descending: false } as const;

/**
 * The keys a filter offers: every key, by name, when there are at most `PICKER_KEYS`;
 * undefined when there are more (the filter is then a field: `keyField`). One read of
 * the store, of at most `PICKER_KEYS + 1` keys.
 */
export async function pickableKeys(keys: KeyService): Promise<KeyView[] | undefined> {
  const page = await keys.page(BY_NAME, PICKER_KEYS, undefined, { previous: false });
  return page.next === null ? page.keys : undefined;
}

/** Where to look up a key's id: the API Keys page's search (by name, owner, id or secret). */
export const findKeyHint = (what: string) =>
  html`${what}: <a href="/dashboard/keys">search API Keys</a> by name, owner or secret.`;

/**
 * What a page filtered by a key id that names no key says, in the same words on every
 * page, then what it shows instead: a select lists only known keys, so without it the
 * page would read as if the key were known and simply had nothing to show.
 */
export const unknownKeyNotice = (keyId: string, shownInstead: string) =>
  html`<p class="alert alert-error" role="status">No key has the id <code>${keyId}</code>: ${shownInstead}.</p>`;

/** How a select names a key: its name and the ends of its secret. */
export const keyLabel = (key: KeyView) => `${key.name} (${key.prefix}…${key.last4})`;

/**
 * A text field in place of a select of too many keys (or owners): `id`, `name` and the
 * value given, with a hint saying what to type and where to find it.
 */
export function filterField({
  id,
  name,
  label,
  current,
  placeholder,
  hint,
}: {
  id: string;
  name: string;
  label: string;
  current: string | undefined;
  placeholder: string;
  hint: string | SafeHtml;
}): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label><input type="text" id="${id}" name="${name}" value="${current ?? ""}" placeholder="${placeholder}" aria-describedby="${id}-hint" autocomplete="off" spellcheck="false"><p class="hint" id="${id}-hint">${hint}</p></div>`;
}
