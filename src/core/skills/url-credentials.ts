import { decodedName, isCredentialName } from "./credential-names.js";
import { maskingWork, type Span, spansPlaced, withSpansMasked } from "./masked-spans.js";
import { spansUnderEncoding } from "./percent-layers.js";

export { maskingWork } from "./masked-spans.js";

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
 * `url` with its credentials masked, and those of the URLs nested in it: the one rule by
 * which every URL skillport keeps, answers or logs is masked (a param marked `"url"`,
 * http.request's final URL and the URLs in its response headers, a URL an error message
 * quotes, the database URL the log names):
 * - the password of its user information (all of it when there is no password: a token is
 *   often sent as the user), and the user information of any URL inside it
 *   (`?next=https://user:pw@…`, `Refresh: 0; url=https://user:pw@…`);
 * - the values of its query and fragment members whose names are credential names
 *   (`?api_key=…`, OAuth's `#access_token=…`; members are separated by `&` or `;`), and
 *   from its query on, the value of any credential member wherever it stands, so a URL
 *   nested in a query value keeps none (`?next=https://app/cb?access_token=…`, two URLs
 *   one after the other);
 * - the same under the percent-encoding of its query, as a URL nested in a query value is
 *   written (`?next=%2Fcb%3Ftoken%3D…`, `?next=https%3A%2F%2Fuser%3Apw%40…`), up to four
 *   layers deep (`spansUnderEncoding`): what is masked there is replaced as written, and
 *   the escapes around it are kept, so the URL reads, and parses, as it did.
 * Works on the text as given, valid URL or not, and changes nothing else (no normalising),
 * so the rest reads as it was sent. Before the query, text is kept: `session=…` of a
 * `Set-Cookie`, which is no URL.
 */
export function urlWithoutCredentials(url: string): string {
  const query = url.search(/[?#]/);
  const nested = nestedSpans(url, query === -1 ? url.length : query, parseBudgetFor(url));
  return withSpansMasked(url, [...ownSpans(url), ...nested]);
}

/**
 * Free text (a Link header's params, a URL without its brackets, a quoted title) with the
 * credentials of the URLs and members it holds masked: the user information of any URL in
 * it, and the value of any `name=value` whose name is a credential name, wherever it
 * stands, percent-encoded or not (`nestedSpans`).
 */
export function textWithoutCredentials(text: string): string {
  return withSpansMasked(text, nestedSpans(text, 0, parseBudgetFor(text)));
}

/**
 * The credentials of the URL `url` starts with: the password of its user information (all
 * of it without a password: `userInfoAt`), and the values of its query and fragment
 * members under credential names, an empty one included (`token=` shows `[redacted]`).
 */
function ownSpans(url: string): Span[] {
  const spans: Span[] = [];
  const user = userInfoAt(url, authorityLength(url));
  if (user !== undefined) spans.push(user);
  const hash = url.indexOf("#");
  const beforeHash = hash === -1 ? url.length : hash;
  const question = url.indexOf("?");
  if (question !== -1 && question < beforeHash) spans.push(...memberListSpans(url, question + 1, beforeHash));
  if (hash !== -1) spans.push(...memberListSpans(url, hash + 1, url.length));
  return spans;
}

/** What the parses of one value may still read (`PARSE_ALLOWANCE`), shared by all of its layers. */
interface ParseBudget {
  left: number;
}

/** Twice the text, and a little more for short values: what the parses of a value may read, summed. */
function parseBudgetFor(text: string): ParseBudget {
  return { left: 2 * text.length + PARSE_ALLOWANCE };
}

/**
 * The credentials `text` holds nested in it: the user information of every URL in it
 * (`userInfoSpansIn`), and from `membersFrom` on, the value of every credential member
 * (`memberSpansIn`), as written and under its percent-encoding (`spansUnderEncoding`).
 */
function nestedSpans(text: string, membersFrom: number, budget: ParseBudget): Span[] {
  // In a layer decoded from the query, an encoded `%26` is an `&`, as the server that
  // decodes the value reads it: the members of the URL nested there.
  const encoded = spansUnderEncoding(text.slice(membersFrom), (layer) => [
    ...userInfoSpansIn(layer, budget),
    ...memberSpansIn(layer, 0),
  ]);
  return [
    ...userInfoSpansIn(text, budget),
    ...memberSpansIn(text, membersFrom),
    ...spansPlaced(encoded, (index) => membersFrom + index),
  ];
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
 * The user information of every URL in `text`, each as `urlWithoutCredentials` masks the
 * one a URL starts with (`userInfoAt`), from each place a URL may start (`URL_START`): so a
 * URL after other text (`0; url=https://user:pw@…`) or inside a URL
 * (`?next=https://user:pw@…`) is masked too. A place whose authority holds no `@` is passed
 * over at once, so a hostile value costs one pass, not a parse at each of its schemes; past
 * what `budget` allows, the rest of the text is masked whole.
 */
function userInfoSpansIn(text: string, budget: ParseBudget): Span[] {
  if (!text.includes("@")) return [];
  const atInAuthority = atBeforeAuthorityEnd(text);
  const spans: Span[] = [];
  let from = 0;
  for (const start of text.matchAll(URL_START)) {
    if (start.index < from) continue;
    let authority = start.index + start[0].length;
    while (authority < text.length && "\t\n\r\\/".includes(text.charAt(authority))) authority++;
    if (atInAuthority[authority] !== 1) continue;
    const url = text.slice(start.index);
    const length = authorityLength(url);
    budget.left -= length;
    if (budget.left < 0) return [...spans, { from: start.index, to: text.length }];
    const found = userInfoAt(url, length);
    if (found === undefined) continue;
    spans.push({ from: start.index + found.from, to: start.index + found.to });
    from = start.index + found.end;
  }
  return spans;
}

/**
 * What the parses of a value's URLs may read beyond twice its length. A URL whose parse
 * finds no user leaves the next start inside its authority to be parsed too, so a value
 * made of them (`ws:\@ws:\@…`, 16 KiB) would cost a parse of the rest of it at each,
 * in proportion to its length squared, on the thread every request shares. Past this
 * much, the rest of the value is masked whole: no value a server sends for a user to read
 * comes near it, and a hostile one shows nothing and costs one pass. The layers of its
 * percent-encoding share it.
 */
const PARSE_ALLOWANCE = 4096;

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
 * From `from` on, the value of each `name=value` in `text` whose name is a credential
 * name, its leading spaces kept: a URL's query and fragment members (`…?a=1&token=…`), a
 * Link's params (`token=…`). An empty value hides nothing and is kept, so a quoted value
 * after it is judged on its own (`linkWithoutCredentials`).
 */
function memberSpansIn(text: string, from: number): Span[] {
  const spans: Span[] = [];
  const names = new RegExp(MEMBER_NAME);
  names.lastIndex = from;
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
    spans.push({ from: valueStart + (/^\s*/.exec(value)?.[0].length ?? 0), to: valueEnd });
    names.lastIndex = valueEnd;
  }
  return spans;
}

/**
 * The part of the user information `url` starts with that is masked: its password (all of
 * it without a password), and where the scheme and user information end (`end`);
 * undefined when it starts with none. A URL that parses is judged by what the parser reads,
 * so `mailto:bob@example.com` (a path, no user) is kept; one that does not is judged by its
 * text. A parsed user the text does not show where USER_INFO looks (a tab inside the
 * scheme, which parsers drop) masks the whole URL: no form of a password is shown.
 */
function userInfoAt(url: string, length: number): (Span & { end: number }) | undefined {
  // Only the scheme and authority are parsed: the rest cannot hold a user, and a long value
  // parsed whole at each URL it holds cost time in proportion to its length squared.
  const authority = url.slice(0, length);
  maskingWork.parsed += length;
  if (!authority.includes("@")) return undefined;
  const parsed = URL.parse(authority);
  if (parsed !== null && parsed.username === "" && parsed.password === "") return undefined;
  const found = USER_INFO.exec(authority);
  if (found === null) return parsed === null ? undefined : { from: 0, to: url.length, end: url.length };
  const [whole, scheme = "", userInfo = ""] = found;
  // After the user's colon, or all of it when there is none.
  return { from: scheme.length + userInfo.indexOf(":") + 1, to: whole.length - 1, end: whole.length };
}

/** The length of the scheme (or `//`) and authority `url` starts with (`AUTHORITY`). */
function authorityLength(url: string): number {
  return AUTHORITY.exec(url)?.[0].length ?? url.length;
}

/** In `url` from `start` to `end`, `name=value&…` (or `;`-separated): the values of credential names. */
function memberListSpans(url: string, start: number, end: number): Span[] {
  const spans: Span[] = [];
  let memberStart = start;
  for (const separator of [...url.slice(start, end).matchAll(/[&;]/g)].map((found) => start + found.index)) {
    spans.push(...memberValueSpan(url, memberStart, separator));
    memberStart = separator + 1;
  }
  spans.push(...memberValueSpan(url, memberStart, end));
  return spans;
}

/** The value of the member from `start` to `end` of `url`, when its name is a credential name. */
function memberValueSpan(url: string, start: number, end: number): Span[] {
  // Looked for in the member alone: a query of many members without one costs one pass.
  const member = url.slice(start, end);
  const equals = member.indexOf("=");
  if (equals === -1) return [];
  return isCredentialName(decodedName(member.slice(0, equals)))
    ? [{ from: start + equals + 1, to: end }]
    : [];
}
