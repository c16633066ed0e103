import { shownUrl } from "./base-url.js";
import { SkillportError } from "./errors.js";

/**
 * A 3xx answer as the error it is. The client follows no redirect: it would resend the
 * key (and an execute's body) to wherever the answer points. The usual cause is a base URL
 * with the wrong scheme or path (http where a proxy redirects to https), so the message
 * says where the answer points and which base URL reaches it.
 */
export function redirectError(
  status: number,
  location: string | undefined,
  request: { origin: string; pathPrefix: string; path: string },
): SkillportError {
  const target = location === undefined ? undefined : resolvedLocation(location, request);
  const where = target === undefined ? "without a Location" : `to ${shownUrl(target)}`;
  const base = target === undefined ? undefined : baseUrlFor(target, request.path);
  const advice =
    base === undefined
      ? "set baseUrl (or SKILLPORT_BASE_URL) to the address the service answers on"
      : `set baseUrl (or SKILLPORT_BASE_URL) to ${base}`;
  return new SkillportError({
    status,
    body: {
      code: "unexpected_response",
      message: `HTTP ${status} redirect ${where}: the client does not follow redirects (they would resend the key); ${advice}.`,
    },
  });
}

/** The Location read against the request's URL, as a browser would; undefined when it is no URL. */
function resolvedLocation(location: string, request: { origin: string; pathPrefix: string; path: string }) {
  try {
    return new URL(location, `${request.origin}${request.pathPrefix}${request.path}`);
  } catch {
    return undefined;
  }
}

/** The base URL that reaches `target` for a request of `path`: its origin and the prefix before `path`. */
function baseUrlFor(target: URL, path: string): string | undefined {
  if (target.protocol !== "http:" && target.protocol !== "https:") return undefined;
  const requestPath = path.split("?")[0] ?? path;
  if (!target.pathname.endsWith(requestPath)) return undefined;
  return `${target.protocol}//${target.host}${target.pathname.slice(0, -requestPath.length)}`;
}
