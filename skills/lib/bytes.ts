import { SkillError } from "../../src/core/skills/skill.js";

export const BYTE_ENCODINGS = ["utf-8", "base64", "base64url", "hex", "url"] as const;
export type ByteEncoding = (typeof BYTE_ENCODINGS)[number];

/**
 * Turns text in an encoding into bytes, strictly: Node's own decoders silently skip
 * characters that do not belong, which would hash or convert the wrong data.
 */
export function decodeBytes(text: string, encoding: ByteEncoding, field: string): Buffer {
  switch (encoding) {
    case "utf-8":
      return Buffer.from(text, "utf8");
    case "hex": {
      const hex = text.replace(/\s+/g, "");
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) {
        throw new SkillError(`${field} is not valid hex: use pairs of 0-9 and a-f`);
      }
      return Buffer.from(hex, "hex");
    }
    case "base64":
    case "base64url": {
      const compact = text.replace(/\s+/g, "");
      const alphabet = encoding === "base64" ? /^[A-Za-z0-9+/]*={0,2}$/ : /^[A-Za-z0-9_-]*={0,2}$/;
      if (!alphabet.test(compact) || compact.replace(/=+$/, "").length % 4 === 1) {
        throw new SkillError(
          `${field} is not valid ${encoding}` +
            (encoding === "base64" && /[-_]/.test(compact) ? ": it looks like base64url" : ""),
        );
      }
      return Buffer.from(compact, encoding);
    }
    case "url":
      return percentDecode(text, field);
  }
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
