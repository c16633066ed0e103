import { decodedName, isCredentialName, REDACTED } from "./credential-names.js";
import { textWithoutCredentials, urlWithoutCredentials } from "./url-credentials.js";

/**
 * A response header's value with the credentials it holds masked, its syntax kept, judged
 * by the header's name: a `Link` link by link (`linkWithoutCredentials`), whatever its first
 * character; any other value as one URL (`Location`, `Content-Location`) with the URLs
 * inside it (`Refresh: 0; url=https://user:pw@…`, a CSP's `report-uri`, a nested
 * `?next=…?token=…`, `?next=%2Fcb%3Ftoken%3D…`): `urlWithoutCredentials`, the rule of a
 * Link's URLs, and of every other URL kept, too. A value that holds no URL is kept as it is
 * (`Set-Cookie`).
 */
export function headerValueWithoutCredentials(name: string, value: string): string {
  if (name.toLowerCase() === "link") return linkWithoutCredentials(value);
  return urlWithoutCredentials(value);
}

/**
 * The pieces of a Link header (RFC 8288: `<URL>; rel="next"; anchor="URL", <URL>; …`): a
 * URL in angle brackets; a quoted string, its `\"` escapes included; or a run of other
 * text: the `;` and `,` between params and links, the params' names and unquoted values,
 * and what a server that does not follow the RFC writes there, such as a URL without its
 * brackets. A bracket or a quote left open runs to the end of the value.
 */
const LINK_PIECES = /<(?<url>[^>]*)(?<urlEnd>>?)|"(?<quoted>(?:[^"\\]|\\.)*)(?<quoteEnd>"?)|[^<"]+/g;

interface LinkPiece {
  url?: string;
  urlEnd?: string;
  quoted?: string;
  quoteEnd?: string;
}

/** Text that ends with a param's or a member's name and its `=`, as it stands before a quoted value. */
const NAME_BEFORE_VALUE = /(?:^|[&;,?#])([^&;,?#=]*)=\s*$/;

/**
 * A Link header with each of its links masked on its own: the URL in angle brackets as a
 * URL; a quoted param value whose name is a credential name (`token="…"`) whole, any other
 * (`anchor="URL"`, a title) and the text between them (`token=…`, a URL a server sent
 * without brackets) as free text (`textWithoutCredentials`). So the `>` and `"` that end
 * them, and the params and links after them, stay as they were. (Masked as one URL, a
 * credential value ran on to the next `&` or `;`, taking the `>` and the links after it.)
 */
function linkWithoutCredentials(value: string): string {
  let before = "";
  return value.replace(LINK_PIECES, (piece: string, ...rest: unknown[]) => {
    const found = rest.at(-1) as LinkPiece;
    let masked: string;
    if (found.url !== undefined) {
      masked = `<${urlWithoutCredentials(found.url)}${found.urlEnd}`;
    } else if (found.quoted !== undefined) {
      const name = NAME_BEFORE_VALUE.exec(before)?.[1];
      const secret = found.quoted !== "" && name !== undefined && isCredentialName(decodedName(name.trim()));
      masked = `"${secret ? REDACTED : textWithoutCredentials(found.quoted)}${found.quoteEnd}`;
    } else {
      masked = textWithoutCredentials(piece);
    }
    before = piece;
    return masked;
  });
}
