import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { KeyService, KeyView } from "../../core/keys/key-service.js";
import { looksLikeSecret, secretIn } from "../../core/keys/secret.js";
import { html, type SafeHtml } from "./html.js";
import { PageError } from "./page-error.js";
import { CSRF_FIELD } from "./session.js";

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

/**
 * A key filter's field (`param` of a page's address) given a secret, or what may be part of
 * one: its hint sends the reader to API Keys, whose search takes secrets, so a secret is at
 * hand and gets pasted there. The page would show it back as an unknown id. A whole secret
 * of a key leads to the same page filtered by that key's id; anything else secret-like is
 * refused without being repeated. The page's own form posts a text key field
 * (`registerKeyFilterForm`); this guards an address typed or kept by hand.
 */
export function keyFilterTakesNoSecret(keys: KeyService, param: string, unfiltered: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const url = new URL(request.url, "http://dashboard.invalid");
    const address = await keyFilterAddress(keys, url, param, unfiltered);
    if (address !== undefined) await reply.redirect(address, 303);
  };
}

/**
 * Answers a page's filter form when its key field is a text field (too many keys to list),
 * which is posted rather than sent in an address: a secret pasted there reached the address
 * the browser asked for, and a proxy's access log, before the page could swap it for its
 * key's id. Redirects (303) to the page's address with the form's filled fields, a secret
 * swapped for its key's id (`keyFilterAddress`).
 */
export function registerKeyFilterForm(
  app: FastifyInstance,
  keys: KeyService,
  { path, param, unfiltered }: { path: string; param: string; unfiltered: string },
): void {
  app.post(path, async (request, reply) => {
    const url = new URL(`/dashboard${path}`, "http://dashboard.invalid");
    for (const [name, value] of Object.entries((request.body ?? {}) as Record<string, unknown>)) {
      if (name !== CSRF_FIELD && typeof value === "string" && value !== "") url.searchParams.set(name, value);
    }
    const address = await keyFilterAddress(keys, url, param, unfiltered);
    return reply.redirect(address ?? `${url.pathname}${url.search}`, 303);
  });
}

/**
 * The address to show for `url` whose `param` holds a secret (or what may be part of one):
 * the page filtered by the secret's key; undefined when it holds none. Throws the page that
 * says no key has it, without repeating it.
 */
async function keyFilterAddress(
  keys: KeyService,
  url: URL,
  param: string,
  unfiltered: string,
): Promise<string | undefined> {
  const value = url.searchParams.get(param);
  if (value === null || !looksLikeSecret(value)) return undefined;
  const secret = secretIn(value);
  const key = secret === undefined ? undefined : await keys.findBySecret(secret);
  if (key) {
    url.searchParams.set(param, key.id);
    return `${url.pathname}?${url.searchParams.toString()}`;
  }
  url.searchParams.delete(param);
  const query = url.searchParams.toString();
  throw new PageError(
    404,
    "No key has this secret",
    "What the key field was given looks like a key's secret, and it is no secret of these keys (or it was copied wrongly). It is not shown here; the field takes a key's id, which API Keys finds from a secret.",
    { href: `${url.pathname}${query && `?${query}`}`, label: unfiltered },
  );
}
