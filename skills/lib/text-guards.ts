/**
 * Matches text without ASCII control characters (tabs and newlines included): used for
 * identifiers such as channel names and memory keys, which end up in logs and listings.
 * Written with escapes rather than `\p{Cc}` so the JSON Schema pattern works without the
 * unicode flag in every validator.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const NO_CONTROL_CHARACTERS = /^[^\x00-\x1F\x7F]*$/;
