/**
 * Whether a URL names one of the service's endpoints (`…/v1`, `…/mcp`) rather than the
 * base URL the client and `skillport mcp --remote` take: both are easy to copy from the
 * README's curl lines or an assistant's configuration, and the requests then went to
 * `/v1/v1/discover`, refused as an unknown path. One rule for both; no imports, so the
 * CLI checks `--remote` without loading the client.
 */
export function namesAnEndpoint(url: URL): boolean {
  return /\/(mcp|v1)$/i.test(url.pathname.replace(/\/+$/, ""));
}
