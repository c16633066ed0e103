import { TextDecoder } from "node:util";

/**
 * How http.request returns a response body: as text, or as base64 where text would lose
 * bytes. Decoded as text, a PNG came back with its invalid bytes replaced by U+FFFD and
 * nothing said so: an agent that hashed or saved it had other bytes.
 */

export const RESPONSE_ENCODINGS = ["auto", "text", "base64"] as const;
export type ResponseEncoding = (typeof RESPONSE_ENCODINGS)[number];
export type BodyEncoding = Exclude<ResponseEncoding, "auto">;

/**
 * Media types that hold text whatever their charset says: text/*, JSON, XML, YAML,
 * JavaScript, CSV, forms and the structured-syntax suffixes (+json, +xml: problem+json,
 * svg+xml, atom+xml).
 */
const TEXTUAL_TYPE =
  /^text\/|[/+.-](?:json|jsonl|ndjson|xml|yaml|yml|javascript|ecmascript|csv|toml|graphql|sql)$|^application\/x-www-form-urlencoded$/;

/** The media type of a Content-Type value, in lower case, without its parameters. */
function mediaType(contentType: string | undefined): string | undefined {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  return essence === "" ? undefined : essence;
}

/** The charset a Content-Type declares, if any. */
function charsetOf(contentType: string | undefined): string | undefined {
  return /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
}

/** A decoder for the declared charset, UTF-8 when it declares none or an unknown one. */
function decoder(contentType: string | undefined, fatal: boolean): TextDecoder {
  try {
    return new TextDecoder(charsetOf(contentType) ?? "utf-8", { fatal });
  } catch {
    return new TextDecoder("utf-8", { fatal });
  }
}

/**
 * Whether the bytes are text without loss in the declared charset. A body cut at max_bytes
 * may end inside a character: those last bytes are not counted against it.
 */
function isText(bytes: Buffer, contentType: string | undefined, truncated: boolean): boolean {
  try {
    decoder(contentType, true).decode(bytes, { stream: truncated });
    return true;
  } catch {
    return false;
  }
}

/**
 * The encoding `auto` picks: text for a textual media type, or for none when the bytes are
 * valid in the charset, if they are; base64 for anything else (images, archives, PDF,
 * application/octet-stream) and for bytes the charset does not hold.
 */
export function chosenEncoding(
  requested: ResponseEncoding,
  bytes: Buffer,
  contentType: string | undefined,
  truncated: boolean,
): BodyEncoding {
  if (requested !== "auto") return requested;
  const type = mediaType(contentType);
  if (type !== undefined && !TEXTUAL_TYPE.test(type)) return "base64";
  return isText(bytes, contentType, truncated) ? "text" : "base64";
}

/** The body in `encoding`: text decoded with the response charset, or base64 of the bytes. */
export function encodedBody(bytes: Buffer, contentType: string | undefined, encoding: BodyEncoding): string {
  return encoding === "base64" ? bytes.toString("base64") : decoder(contentType, false).decode(bytes);
}
