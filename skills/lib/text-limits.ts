/**
 * The most characters a skill's large text param takes (a document, a CSV, data to hash or
 * convert). Every request must fit in the request body limit (SKILLPORT_MAX_BODY_BYTES,
 * 1 MiB by default; an MCP message over stdio too), and agents size their input from the
 * params' advertised maxLength: a larger figure promised what a default server refuses
 * with 413. A million plain ASCII characters fit with room for the
 * rest of the request; text that JSON escapes (quotes, line breaks) or that is not ASCII
 * takes more bytes per character, and TEXT_SIZE_NOTE says so. A deployment
 * that raises the body limit does not raise this.
 */
export const MAX_TEXT_CHARACTERS = 1_000_000;

/**
 * Said in each such param's description: the body limit, in bytes of the JSON request, is
 * the bound that holds, and what a character costs there (JSON.stringify's escapes: `\"`,
 * `\\`, `\n` and the like take 2 bytes, `\u0001` 6).
 */
export const TEXT_SIZE_NOTE =
  "Up to 1,000,000 characters, and the whole JSON request must fit in the request body limit (1 MiB by " +
  "default), where a quote, backslash, tab or line break takes 2 bytes (escaped), another control character 6, " +
  "and a character outside ASCII 2 to 4: text with many quotes or lines (a CSV) fits in fewer characters.";
