/**
 * Headers that describe the request's body; they go with the body and are dropped with it
 * (the Fetch standard's "request-body-header names", plus Content-Length).
 */
const BODY_HEADERS = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
]);

/**
 * The caller's headers that may follow a redirect to another origin: they say what the
 * caller wants back and carry no secret. Every other header is dropped there, whatever its
 * name. Browsers (Fetch: Authorization only) and curl (Authorization and Cookie) strip a
 * short list of known credentials instead, but an agent sends API keys in any header
 * (X-Api-Key, Private-Token, X-Auth-Token, ...), and an API that redirects to a CDN or a
 * presigned URL would hand them to that host (RFC 9110 section 15.4: credentials are for
 * the origin they were meant for).
 */
const SAFE_ACROSS_ORIGINS = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "range",
  "user-agent",
]);

export interface RedirectHop {
  /** The next URL's origin differs from the current one (scheme, host or port). */
  crossOrigin: boolean;
  /** The method and body are sent again (307, 308, and 301/302 after anything but POST). */
  keepsBody: boolean;
}

/** The caller's headers to send on the next hop of a redirect. */
export function headersForRedirect(
  headers: Record<string, string>,
  hop: RedirectHop,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => {
      const lower = name.toLowerCase();
      if (BODY_HEADERS.has(lower)) return hop.keepsBody;
      return !hop.crossOrigin || SAFE_ACROSS_ORIGINS.has(lower);
    }),
  );
}
