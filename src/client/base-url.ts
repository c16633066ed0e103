/*
 * Base URLs of skillport, for the client library and for `skillport mcp --remote` alike (one
 * rule for both): what one may not be, and what a message may show of one. No imports, so
 * the CLI checks `--remote` without loading the client.
 */

/**
 * Whether a URL names one of the service's endpoints (`…/v1`, `…/mcp`) rather than the
 * base URL the client and `skillport mcp --remote` take: both are easy to copy from the
 * README's curl lines or an assistant's configuration, and the requests then went to
 * `/v1/v1/discover`, refused as an unknown path.
 */
export function namesAnEndpoint(url: URL): boolean {
  return /\/(mcp|v1)$/i.test(url.pathname.replace(/\/+$/, ""));
}

/**
 * Whether a URL holds a user name or password: never sent (the key alone authenticates, as
 * `Authorization: Bearer`), so taking the URL would silently drop them; and a message that
 * repeated the URL would show a secret.
 */
export function holdsCredentials(url: URL): boolean {
  return url.username !== "" || url.password !== "";
}

/**
 * The URL without what may be a credential: its user information, query and fragment
 * (tokens travel there) are left out, a `…` in their place; so is an opaque path (a URL
 * without `//`, such as `user:secret@host`, read as the scheme `user:`), which may hold
 * anything. The scheme, host and path are what a message is for. (The client loads no
 * server code, so not the server's masking.)
 */
export function shownUrl(url: URL): string {
  if (url.host === "" && !url.pathname.startsWith("/")) return `${url.protocol}…`;
  const user = holdsCredentials(url) ? "…@" : "";
  const rest = url.search !== "" || url.hash !== "" ? "?…" : "";
  return `${url.protocol}//${user}${url.host}${url.pathname}${rest}`;
}

/**
 * The URL a base URL given as text was meant to be, for its checks and messages (not to
 * send to: one without a scheme is refused all the same). A text that neither starts with
 * `scheme://` nor names a host is taken to miss its scheme (`127.0.0.1:8080`;
 * `user:secret@host:8080`, which parses as a URL of the scheme `user:`, its password
 * unseen) and read as the http URL it would be with one. Undefined for a text that is no
 * URL as given or as meant.
 */
export function meantUrl(text: string): URL | undefined {
  return readAsMeant(text)?.url;
}

/**
 * What a message about a base URL given as text may repeat of it, quoted: the text itself
 * when, read as meant, it holds nothing `shownUrl` leaves out (the caller knows their own
 * text best); else `shownUrl`'s form, without the scheme that reading added; nothing of a
 * text that is no URL at all, where a secret cannot be told from the rest.
 */
export function shownBaseUrl(text: string): string {
  const meant = readAsMeant(text);
  if (meant === undefined) return "text that is no URL at all (not repeated here: it may hold a secret)";
  const shown = shownUrl(meant.url);
  if (shown === meant.url.href) return JSON.stringify(text);
  return JSON.stringify(meant.schemeAdded ? shown.slice("http://".length) : shown);
}

function readAsMeant(text: string): { url: URL; schemeAdded: boolean } | undefined {
  const url = urlOf(text);
  if (url?.host || /^[a-z][a-z\d+.-]*:\/\//i.test(text)) return url && { url, schemeAdded: false };
  const withScheme = urlOf(`http://${text}`);
  return withScheme && { url: withScheme, schemeAdded: true };
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
