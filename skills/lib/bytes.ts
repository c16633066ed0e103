import { SkillError } from "../../src/core/skills/skill.js";

export const BYTE_ENCODINGS = ["utf-8", "base64", "base64url", "hex", "url"] as const;
export type ByteEncoding = (typeof BYTE_ENCODINGS)[number];

/**
 * Turns text in an encoding into bytes, strictly: Node's own decoders silently skip
 * characters that do not belong, which would hash or convert the wrong data. A refusal says
 * which character and where (a whole JWT given as base64url failed as "not valid base64url"
 * alone), except in a `secret`, whose characters it never quotes.
 */
export function decodeBytes(
  text: string,
  encoding: ByteEncoding,
  field: string,
  options: { secret?: boolean } = {},
): Buffer {
  switch (encoding) {
    case "utf-8":
      return Buffer.from(text, "utf8");
    case "hex": {
      const hex = text.replace(/\s+/g, "");
      const stray = strayCharacter(text, /[0-9a-fA-F\s]/, options);
      if (stray !== undefined) {
        const prefix = /^\s*0x/i.test(text) ? "; leave out the 0x prefix" : "";
        throw new SkillError(`${field} is not valid hex: ${stray} is not a hex digit (0-9, a-f)${prefix}`);
      }
      if (hex.length % 2 === 1) {
        throw new SkillError(
          `${field} is not valid hex: it has an odd number of digits (${hex.length}), and each byte is a pair`,
        );
      }
      return Buffer.from(hex, "hex");
    }
    case "base64":
    case "base64url": {
      const compact = text.replace(/\s+/g, "");
      if (encoding === "base64" && /[-_]/.test(compact) && /^[A-Za-z0-9_-]*={0,2}$/.test(compact)) {
        throw new SkillError(`${field} is not valid base64: it looks like base64url`);
      }
      const stray = strayCharacter(
        text,
        encoding === "base64" ? /[A-Za-z0-9+/=\s]/ : /[A-Za-z0-9_=\s-]/,
        options,
      );
      if (stray !== undefined) {
        const jwt =
          encoding === "base64url" && compact.includes(".")
            ? "; a JWT is three base64url parts joined by '.': decode one part at a time"
            : "";
        throw new SkillError(
          `${field} is not valid ${encoding}: ${stray} is not a ${encoding} character ` +
            `(A-Z, a-z, 0-9, ${encoding === "base64" ? "+ and /" : "- and _"}, and = as padding at the end)${jwt}`,
        );
      }
      if (!/^[^=]*={0,2}$/.test(compact)) {
        throw new SkillError(
          `${field} is not valid ${encoding}: = is padding and only ends the text, 2 at most; two encoded ` +
            "texts joined together are decoded one at a time",
        );
      }
      if (compact.replace(/=+$/, "").length % 4 === 1) {
        throw new SkillError(
          `${field} is not valid ${encoding}: its length leaves one character over, which encodes no byte: ` +
            "it is cut short or has a character too many",
        );
      }
      return Buffer.from(compact, encoding);
    }
    case "url":
      return percentDecode(text, field);
  }
}

/**
 * The first character of `text` that `allowed` does not match, as a refusal names it: quoted,
 * with its position (counted from 1, in characters as written); in a secret, neither.
 */
function strayCharacter(text: string, allowed: RegExp, options: { secret?: boolean }): string | undefined {
  let position = 0;
  for (const character of text) {
    position += 1;
    if (allowed.test(character)) continue;
    return options.secret ? "one of its characters" : `${JSON.stringify(character)} (character ${position})`;
  }
  return undefined;
}

/** Bytes as text in an encoding; utf-8 output requires the bytes to be valid UTF-8. */
export function encodeBytes(bytes: Buffer, encoding: ByteEncoding): string {
  switch (encoding) {
    case "utf-8":
      try {
        // ignoreBOM keeps a leading byte-order mark: the default strips it, and the data with it.
        return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
      } catch {
        throw new SkillError(
          "The bytes are not valid UTF-8 text: choose hex, base64 or url as the output encoding",
        );
      }
    case "hex":
      return bytes.toString("hex");
    case "base64":
    case "base64url":
      return bytes.toString(encoding);
    case "url":
      return percentEncode(bytes);
  }
}

const PERCENT = 0x25;

/**
 * Percent-decoding byte by byte (RFC 3986 section 2.1): `%FF` is the byte 0xFF whether or
 * not the bytes form UTF-8 (decodeURIComponent refuses those), and a character written as
 * itself stands for its UTF-8 bytes. `+` stays `+`: it means a space only in form bodies.
 */
function percentDecode(text: string, field: string): Buffer {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) {
    throw new SkillError(`${field} is not valid percent-encoding: a % must be followed by two hex digits`);
  }
  // Never more bytes than the text's UTF-8: each %XX is three bytes that become one.
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(text, "utf8"));
  let length = 0;
  let index = 0;
  while (index < text.length) {
    if (text.charCodeAt(index) === PERCENT) {
      bytes[length] = Number.parseInt(text.slice(index + 1, index + 3), 16);
      length += 1;
      index += 3;
    } else {
      const next = text.indexOf("%", index);
      const end = next === -1 ? text.length : next;
      length += bytes.write(text.slice(index, end), length, "utf8");
      index = end;
    }
  }
  return bytes.subarray(0, length);
}

/** Each byte as itself when it is an RFC 3986 unreserved character, else as %XX: any bytes, UTF-8 or not. */
const PERCENT_ENCODED = Array.from({ length: 256 }, (_, byte) => {
  const character = String.fromCharCode(byte);
  return /[A-Za-z0-9\-._~]/.test(character)
    ? character
    : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
});

function percentEncode(bytes: Buffer): string {
  let text = "";
  for (const byte of bytes) text += PERCENT_ENCODED[byte];
  return text;
}
