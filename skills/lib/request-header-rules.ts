import { SkillError } from "../../src/core/skills/skill.js";

/** RFC 9110 section 5.6.2: a header name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * What a header value may hold (RFC 9110 section 5.5, as undici and Node check it): tab,
 * visible ASCII, space and the bytes 0x80-0xFF, one character each.
 */
const VALUE_CHARACTER = /[\t\x20-\x7e\x80-\xff]/;

/**
 * Headers of the connection itself, which the client writes (RFC 9110 section 7.6.1): undici
 * refuses them, and `Expect: 100-continue` it does not support.
 */
const CONNECTION_HEADERS: Readonly<Record<string, string>> = {
  "transfer-encoding": "the body is sent with a Content-Length",
  "keep-alive": "connections are kept alive as the client decides",
  upgrade: "a request here cannot switch protocols (no WebSocket)",
  expect: "Expect: 100-continue is not supported; the body is sent at once",
};

/**
 * Refuses a header the request could not carry, naming it and saying what to do: undici's
 * own words named no header ("invalid header key"), said "invalid X header" for a character
 * it does not say, or were a bare code (UND_ERR_NOT_SUPPORTED for Expect). A value is never
 * quoted, nor a name that holds a value (`"Authorization: Bearer …"` as a name): it may be
 * a credential, and the message is kept with the record.
 */
export function refuseUnsendableHeaders(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new SkillError(badName(name));
    const lower = name.toLowerCase();
    const connection = CONNECTION_HEADERS[lower];
    if (connection !== undefined) {
      throw new SkillError(
        `Header ${name} is the connection's, which the client writes: leave it out (${connection})`,
      );
    }
    if (lower === "content-length" && !/^\d+$/.test(value)) {
      throw new SkillError(
        "Header Content-Length is not a whole number: leave it out, it is computed from body",
      );
    }
    const stray = strayValueCharacter(value);
    if (stray !== undefined) {
      throw new SkillError(
        `Header ${name}: its value holds ${stray.kind} (character ${stray.position}), which a header value cannot ` +
          `carry: ${stray.advice}`,
      );
    }
  }
}

function badName(name: string): string {
  const pasted = /[:\s]/.test(name);
  if (pasted) {
    return (
      "A header name holds a colon or white space: give each header as a member whose name is the header's " +
      'name alone and whose value is its value, e.g. {"Authorization": "Bearer …"}'
    );
  }
  return (
    `Header name ${JSON.stringify(name)} is not a valid HTTP header name: use ASCII letters, digits and ` +
    "! # $ % & ' * + - . ^ _ ` | ~"
  );
}

function strayValueCharacter(value: string): { kind: string; position: number; advice: string } | undefined {
  let position = 0;
  for (const character of value) {
    position += 1;
    if (VALUE_CHARACTER.test(character)) continue;
    if (character === "\r" || character === "\n") {
      return { kind: "a line break", position, advice: "a header is one line; remove it" };
    }
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x100) {
      const hex = code.toString(16).toUpperCase().padStart(4, "0");
      return { kind: `the control character U+${hex}`, position, advice: "remove it" };
    }
    return {
      kind: "a character beyond U+00FF (outside Latin-1)",
      position,
      advice:
        "header values are bytes: percent-encode the text (encoding.convert to url) or send it in the body",
    };
  }
  return undefined;
}
