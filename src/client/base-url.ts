/*
 * What a base URL of skillport may not be, for the client library and for `skillport mcp
 * --remote` alike (one rule for both). No imports, so the CLI checks `--remote` without
 * loading the client.
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
