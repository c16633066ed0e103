/**
 * The last words of the names under which requests carry credentials: HTTP headers
 * (`Authorization`, `Proxy-Authorization`, `Cookie`, `X-Api-Key`, `X-Auth-Token`), URL
 * query members (`token`, `api_key`, `access_token`, `password`, `sig`) and form fields
 * alike. Judging by the last word catches the many spellings (`X-Goog-Api-Key`,
 * `client_secret`, `accessToken`, `X-Hub-Signature-256`) at the cost of masking a few
 * values that were not secret (`Idempotency-Key`), which costs a reader of a record little;
 * a credential shown costs its owner the credential.
 */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  "apikey",
  "auth",
  "authentication",
  "authorization",
  "cookie",
  "credential",
  "jwt",
  "key",
  "otp",
  "pass",
  "passphrase",
  "passwd",
  "password",
  "pwd",
  "secret",
  "session",
  "sessionid",
  "sid",
  "sig",
  "signature",
  "token",
]);

/** What stands in for a masked value. */
export const REDACTED = "[redacted]";

/**
 * Whether a header, query member or field of this name carries a credential: its last
 * word (camelCase, `-`, `_` and `.` separate words; a number such as `-256` is skipped), or
 * that word without a plural `s`, is one of CREDENTIAL_WORDS.
 */
export function isCredentialName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "" && !/^\d+$/.test(word));
  const last = words.at(-1);
  if (last === undefined) return false;
  return CREDENTIAL_WORDS.has(last) || (last.endsWith("s") && CREDENTIAL_WORDS.has(last.slice(0, -1)));
}

/**
 * `scheme:` and the user information after it, `user:password` or a token, up to the last
 * `@` of the authority, in every form a URL parser reads one: after `//`, and also (for
 * http and https, as WHATWG URL and so fetch read them) after backslashes, one slash or
 * none, and with spaces before the scheme.
 */
const USER_INFO = /^(\s*[a-z][a-z0-9+.-]*:[\\/]*)([^/\\?#]*)@/i;

/**
 * `url` with its credentials masked: the password of its user information (all of it when
 * there is no password: a token is often sent as the user), and the values of its query
 * and fragment members whose names are credential names (`?api_key=…`, OAuth's
 * `#access_token=…`; members are separated by `&` or `;`). Works on the text as given,
 * valid URL or not, and changes nothing else (no normalising), so the rest reads as it
 * was sent.
 */
export function urlWithoutCredentials(url: string): string {
  const withoutUser = withoutUserInfo(url);
  const hash = withoutUser.indexOf("#");
  const beforeHash = hash === -1 ? withoutUser : withoutUser.slice(0, hash);
  const fragment = hash === -1 ? undefined : withoutUser.slice(hash + 1);
  const question = beforeHash.indexOf("?");
  const base = question === -1 ? beforeHash : beforeHash.slice(0, question);
  const query = question === -1 ? undefined : membersWithoutCredentials(beforeHash.slice(question + 1));
  return (
    base +
    (query === undefined ? "" : `?${query}`) +
    (fragment === undefined ? "" : `#${membersWithoutCredentials(fragment)}`)
  );
}

/**
 * The pieces of a Link header (RFC 8288: `<URL>; rel="next"; anchor="URL", <URL>; …`),
 * one of: a URL in angle brackets; a param, `name=` and a value quoted (its `\"` escapes
 * included) or not; any other run of text (a param without a value), or a stray quoted
 * string. The `;` and `,` that separate params and links match no piece and stay as they
 * are. A bracket or a quote left open runs to the end of the value.
 */
const LINK_PIECES =
  /<(?<url>[^>]*)(?<urlEnd>>?)|(?<name>[^<";,=]*)=(?<space>\s*)(?:"(?<quoted>(?:[^"\\]|\\.)*)(?<quoteEnd>"?)|(?<bare>[^<";,]*))|"(?<stray>(?:[^"\\]|\\.)*)(?<strayEnd>"?)|[^<";,]+/g;

interface LinkPiece {
  url?: string;
  urlEnd?: string;
  name?: string;
  space?: string;
  quoted?: string;
  quoteEnd?: string;
  bare?: string;
  stray?: string;
  strayEnd?: string;
}

/**
 * A response header value with the credentials it holds masked, its syntax kept. A value
 * that starts with `<` is a Link header: each URL in angle brackets and each param value
 * (`anchor` holds a URL) is masked on its own (`urlWithoutCredentials`), and a param whose
 * name is a credential name loses its value, so the `>` and `"` that end them, and the
 * params and links after them, stay as they were. (Masked as one URL, a credential value
 * ran on to the next `&` or `;`, taking the `>` with it, and a second link's query was
 * read as part of the first's.) Any other value is masked as one URL (`Location`), and one
 * that is no URL is kept as it is (`Set-Cookie`).
 */
export function headerValueWithoutCredentials(value: string): string {
  if (!value.trimStart().startsWith("<")) return urlWithoutCredentials(value);
  return value.replace(LINK_PIECES, (piece: string, ...rest: unknown[]) => {
    const found = rest.at(-1) as LinkPiece;
    if (found.url !== undefined) return `<${urlWithoutCredentials(found.url)}${found.urlEnd}`;
    if (found.name !== undefined) {
      const secret = isCredentialName(found.name);
      const start = `${found.name}=${found.space}`;
      if (found.quoted !== undefined) {
        return `${start}"${secret ? REDACTED : urlWithoutCredentials(found.quoted)}${found.quoteEnd}`;
      }
      return `${start}${secret && found.bare !== "" ? REDACTED : urlWithoutCredentials(found.bare ?? "")}`;
    }
    if (found.stray !== undefined) return `"${urlWithoutCredentials(found.stray)}${found.strayEnd}`;
    return urlWithoutCredentials(piece);
  });
}

/**
 * `url` with the password of its user information masked (all of it without a password).
 * A URL that parses is judged by what the parser reads, so `mailto:bob@example.com` (a
 * path, no user) is kept; one that does not is judged by its text. A parsed user the text
 * does not show where USER_INFO looks (a tab inside the scheme, which parsers drop) masks
 * the whole URL: no form of a password is shown.
 */
function withoutUserInfo(url: string): string {
  const parsed = URL.parse(url);
  if (parsed !== null && parsed.username === "" && parsed.password === "") return url;
  const found = USER_INFO.exec(url);
  if (found === null) return parsed === null ? url : REDACTED;
  const [whole, scheme, userInfo = ""] = found;
  const colon = userInfo.indexOf(":");
  const masked = colon === -1 ? REDACTED : `${userInfo.slice(0, colon)}:${REDACTED}`;
  return `${scheme}${masked}@${url.slice(whole.length)}`;
}

/** `name=value&…` (or `;`-separated) with the values of credential names masked. */
function membersWithoutCredentials(members: string): string {
  // The separators are kept, at the odd indices, so the text is rebuilt as it was.
  return members
    .split(/([&;])/)
    .map((member, index) => {
      const equals = member.indexOf("=");
      if (index % 2 === 1 || equals === -1) return member;
      const name = member.slice(0, equals);
      return isCredentialName(decodedName(name)) ? `${name}=${REDACTED}` : member;
    })
    .join("");
}

/** A query member's name as a server reads it (`+` is a space); as written when it is not valid. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
}
