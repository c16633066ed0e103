/**
 * The largest result a record keeps, in bytes of UTF-8 JSON. A skill's output can be far
 * larger than its input (a JMESPath expression of 150 bytes can select 2^28 copies of its
 * document; a control character is one byte of input and six of JSON, `\u0001`), and a
 * record that big cannot be stored or sent: it fails instead, with a message saying to
 * ask for less.
 */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * Whether `value` would take more than `maxBytes` as UTF-8 JSON. Walks the value and stops
 * as soon as the count passes `maxBytes`, so it costs at most that much work whatever the
 * value's real size: a result whose parts are shared (a structured clone keeps sharing)
 * is never expanded in full, as `JSON.stringify` would do.
 */
export function exceedsJsonSize(value: unknown, maxBytes: number): boolean {
  let budget = maxBytes;
  const visit = (node: unknown): boolean => {
    if (typeof node === "string") budget -= jsonStringBytes(node, budget);
    else if (typeof node === "number") budget -= Number.isFinite(node) ? String(node).length : 4;
    else if (node === null || typeof node !== "object") budget -= 5;
    else {
      budget -= 2;
      if (Array.isArray(node)) {
        for (const item of node) {
          budget -= 1; // the comma
          if (budget < 0 || visit(item)) return true;
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          budget -= jsonStringBytes(key, budget) + 2; // colon and comma
          if (budget < 0 || visit((node as Record<string, unknown>)[key])) return true;
        }
      }
    }
    return budget < 0;
  };
  return visit(value);
}

/**
 * Bytes of `text` as a JSON string in UTF-8: its quotes, escapes (`\"`, `\\`, `\n`,
 * `\u0001`, a lone surrogate's `\ud800`) and multi-byte characters. Stops counting once
 * past `budget`: the caller only needs to know that it is over.
 */
function jsonStringBytes(text: string, budget: number): number {
  let bytes = 2;
  for (let i = 0; i < text.length && bytes <= budget; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) bytes += SHORT_ESCAPES.has(code) ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4; // a pair: one character of four bytes
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

/** \b \t \n \f \r: the control characters JSON writes in two bytes. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
