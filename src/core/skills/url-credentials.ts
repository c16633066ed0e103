import { decodedName, isCredentialName, REDACTED } from "./credential-names.js";

/**
 * `scheme:` and the user information after it, `user:password` or a token, up to the last
 * `@` of the authority, in every form a URL parser reads one: after `//`, and also (for
 * http and https, as WHATWG URL and so fetch read them) after backslashes, one slash or
 * none, and with spaces before the scheme; or after the `//` of a scheme-relative URL
 * (`Location: //user:pw@host/`), which a client reads against the http(s) URL it came from.
 */
const USER_INFO = /^(\s*(?:[a-z][a-z0-9+.-]*:[\\/]*|[\\/]{2}))([^/\\?#]*)@/i;

/**
 * The scheme (or `//`) and authority a URL starts with: past the slashes after the scheme,
 * up to the next `/`, `?` or `#`. A parser reads a user only there (a `\` ends it for http
 * and https only, so it does not end it here), and a tab or line break anywhere is dropped.
 */
const AUTHORITY = /^\s*(?:[a-z][a-z0-9+.\-\t\n\r]*:)?[\t\n\r\\/]*[^/?#]*/i;

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
 * A URL a response header holds (`Location`, `Refresh`, a link of a `Link`) with its
 * credentials masked, and those of the URLs nested in it: as `urlWithoutCredentials`, then
 * the user information of any URL inside it (`?next=https://user:pw@…`), then from its
 * query on, the value of any credential member wherever it stands, so a URL nested in a
 * query value keeps none (`?next=https://app/cb?access_token=…`, two URLs one after the
 * other). Before the query, text is kept: `session=…` of a `Set-Cookie`, which is no URL.
 */
export function headerUrlWithoutCredentials(url: string): string {
  const masked = userInfoMaskedIn(urlWithoutCredentials(url));
  const query = masked.search(/[?#]/);
  return query === -1 ? masked : masked.slice(0, query) + membersMaskedIn(masked.slice(query));
}

/**
 * Free text (a Link header's params, a URL without its brackets, a quoted title) with the
 * credentials of the URLs and members it holds masked: the user information of any URL in
 * it (`userInfoMaskedIn`), and the value of any `name=value` whose name is a credential
 * name, wherever it stands (`membersMaskedIn`).
 */
export function textWithoutCredentials(text: string): string {
  return membersMaskedIn(userInfoMaskedIn(text));
}

/** Tabs and line breaks, which URL parsers drop wherever they stand (WHATWG URL). */
const DROPPED = String.raw`[\t\n\r]*`;

/** The schemes whose user information a parser reads with no `//` before it (`http:user:pw@host`). */
const SPECIAL_SCHEMES = ["https", "http", "wss", "ws", "ftp"]
  .map((scheme) => [...scheme].join(DROPPED))
  .join("|");

/**
 * Where a URL that may hold user information starts in free text, not right after a letter,
 * a digit, `+`, `-` or `.`: a special scheme (`http:`), or any scheme a slash follows
 * (`ssh://`); or the `//` of a scheme-relative URL where a value starts (after a space, `,`,
 * `;`, `=` or a quote). Another scheme's URL (`mailto:`, `urn:`) holds none, and skipping it
 * keeps a value full of `a:` from costing a parse at each.
 */
const URL_START = new RegExp(
  String.raw`(?<![a-z0-9+.-])(?:(?:${SPECIAL_SCHEMES})${DROPPED}:|[a-z][a-z0-9+.\-\t\n\r]*:(?=${DROPPED}[\\/]))` +
    String.raw`|(?<=^|[\s,;='"])[\\/]{2}`,
  "gi",
);

/**
 * `text` with the user information of every URL in it masked, each as `urlWithoutCredentials`
 * masks the one a URL starts with (`maskedUserInfoAt`), from each place a URL may start
 * (`URL_START`): so a URL after other text (`0; url=https://user:pw@…`) or inside a URL
 * (`?next=https://user:pw@…`) is masked too. A place whose authority holds no `@` is passed
 * over at once, so a hostile value costs one pass, not a parse at each of its schemes.
 */
export function userInfoMaskedIn(text: string): string {
  if (!text.includes("@")) return text;
  const atInAuthority = atBeforeAuthorityEnd(text);
  // What the parses may read, summed: twice the text, and a little more for short values.
  let budget = 2 * text.length + PARSE_ALLOWANCE;
  let masked = "";
  let from = 0;
  for (const start of text.matchAll(URL_START)) {
    if (start.index < from) continue;
    let authority = start.index + start[0].length;
    while (authority < text.length && "\t\n\r\\/".includes(text.charAt(authority))) authority++;
    if (atInAuthority[authority] !== 1) continue;
    const url = text.slice(start.index);
    const length = authorityLength(url);
    budget -= length;
    if (budget < 0) return `${masked}${text.slice(from, start.index)}${REDACTED}`;
    const found = maskedUserInfoAt(url, length);
    if (found === undefined) continue;
    masked += text.slice(from, start.index) + found.masked;
    from = start.index + found.length;
  }
  return masked + text.slice(from);
}

/**
 * What the parses of a value's URLs may read beyond twice its length. A URL whose parse
 * finds no user leaves the next start inside its authority to be parsed too, so a value
 * made of them (`ws:\@ws:\@…`, 16 KiB) would cost a parse of the rest of it at each,
 * in proportion to its length squared, on the thread every request shares. Past this
 * much, the rest of the value is masked whole: no value a server sends for a user to read
 * comes near it, and a hostile one shows nothing and costs one pass.
 */
const PARSE_ALLOWANCE = 4096;

/**
 * The work masking has done, summed over every value (`parsed`: the characters the
 * authority parses read; `scanned`: those read for a credential member's value). Only
 * tests read it, to hold masking linear in a value's length without timing it.
 */
export const maskingWork = { parsed: 0, scanned: 0 };

/** For each place in `text`, 1 when an `@` comes after it before any `/`, `?` or `#`, else 0; read in one pass. */
function atBeforeAuthorityEnd(text: string): Uint8Array {
  const found = new Uint8Array(text.length + 1);
  for (let index = text.length - 1; index >= 0; index--) {
    const char = text.charAt(index);
    found[index] =
      char === "@" ? 1 : char === "/" || char === "?" || char === "#" ? 0 : (found[index + 1] ?? 0);
  }
  return found;
}

/** Where a member's name starts in free text (at the start, or after `&`, `;`, `,`, `?` or `#`) and its `=`. */
const MEMBER_NAME = /(?<=^|[&;,?#])[^&;,?#=]*=/g;

/**
 * Where a credential member's value ends in free text: at `&`, `;` or `#`, as in a URL's
 * query, or at a `,` that ends a link (before a space or the end). A `?` or a `,` inside a
 * URL (`token=a,b`) does not end it: so much of a value as a URL's query holds is masked.
 */
const VALUE_END = /[&;#]|,(?=\s|$)/g;

/**
 * `text` with the value of each `name=value` whose name is a credential name masked, its
 * leading spaces kept: a URL's query and fragment members (`…?a=1&token=…`, its path
 * before them), a Link's params (`token=…`). An empty value hides nothing and is kept, so a
 * quoted value after it is judged on its own (`linkWithoutCredentials`).
 */
function membersMaskedIn(text: string): string {
  let masked = "";
  let from = 0;
  const names = new RegExp(MEMBER_NAME);
  for (let found = names.exec(text); found !== null; found = names.exec(text)) {
    // The name first: the end of a value that is kept is not looked for, so a value full of
    // `a=` costs one pass, not a scan to its end at each.
    if (!isCredentialName(decodedName(found[0].slice(0, -1).trim()))) continue;
    const valueStart = found.index + found[0].length;
    VALUE_END.lastIndex = valueStart;
    const valueEnd = VALUE_END.exec(text)?.index ?? text.length;
    maskingWork.scanned += valueEnd - valueStart;
    const value = text.slice(valueStart, valueEnd);
    if (value.trim() === "") continue;
    masked += `${text.slice(from, valueStart)}${/^\s*/.exec(value)?.[0]}${REDACTED}`;
    from = valueEnd;
    names.lastIndex = valueEnd;
  }
  return masked + text.slice(from);
}

/** `url` with the password of its user information masked (all of it without a password: `maskedUserInfoAt`). */
function withoutUserInfo(url: string): string {
  const found = maskedUserInfoAt(url, authorityLength(url));
  return found === undefined ? url : found.masked + url.slice(found.length);
}

/**
 * The scheme and user information `url` starts with, the password masked (all of it
 * without a password), and the length of the text they replace; undefined when it starts
 * with none. A URL that parses is judged by what the parser reads, so
 * `mailto:bob@example.com` (a path, no user) is kept; one that does not is judged by its
 * text. A parsed user the text does not show where USER_INFO looks (a tab inside the
 * scheme, which parsers drop) masks the whole URL: no form of a password is shown.
 */
function maskedUserInfoAt(url: string, length: number): { masked: string; length: number } | undefined {
  // Only the scheme and authority are parsed: the rest cannot hold a user, and a long value
  // parsed whole at each URL it holds cost time in proportion to its length squared.
  const authority = url.slice(0, length);
  maskingWork.parsed += length;
  if (!authority.includes("@")) return undefined;
  const parsed = URL.parse(authority);
  if (parsed !== null && parsed.username === "" && parsed.password === "") return undefined;
  const found = USER_INFO.exec(authority);
  if (found === null) return parsed === null ? undefined : { masked: REDACTED, length: url.length };
  const [whole, scheme, userInfo = ""] = found;
  const colon = userInfo.indexOf(":");
  const masked = colon === -1 ? REDACTED : `${userInfo.slice(0, colon)}:${REDACTED}`;
  return { masked: `${scheme}${masked}@`, length: whole.length };
}

/** The length of the scheme (or `//`) and authority `url` starts with (`AUTHORITY`). */
function authorityLength(url: string): number {
  return AUTHORITY.exec(url)?.[0].length ?? url.length;
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
