/**
 * The most characters a skill's large text param takes (a document, a CSV, data to hash or
 * convert). Every request must fit in the request body limit (SKILLPORT_MAX_BODY_BYTES,
 * 1 MiB by default; an MCP message over stdio too), and agents size their input from the
 * params' advertised maxLength: a larger figure promised what a default server refuses
 * with 413 (audit 22, skills F16). A million ASCII characters fit with room for the rest of
 * the request. A deployment that raises the body limit does not raise this.
 */
export const MAX_TEXT_CHARACTERS = 1_000_000;

/** Said in each such param's description: a character outside ASCII takes more than one byte. */
export const TEXT_SIZE_NOTE =
  "Up to 1,000,000 characters, and the whole request must fit in the request body limit (1 MiB by default), " +
  "so less of text outside ASCII, whose characters take 2 to 4 bytes.";
