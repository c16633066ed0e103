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
      try {
        return Buffer.from(decodeURIComponent(text), "utf8");
      } catch {
        throw new SkillError(
          `${field} is not valid percent-encoding: a % must be followed by two hex digits`,
        );
      }
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
          "The bytes are not valid UTF-8 text: choose hex or base64 as the output encoding",
        );
      }
    case "hex":
      return bytes.toString("hex");
    case "base64":
    case "base64url":
      return bytes.toString(encoding);
    case "url":
      // RFC 3986 unreserved characters stay; encodeURIComponent leaves !'()* which are reserved.
      return encodeURIComponent(encodeBytes(bytes, "utf-8")).replace(
        /[!'()*]/g,
        (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
      );
  }
}
