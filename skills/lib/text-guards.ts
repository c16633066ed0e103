/**
 * Matches text without ASCII control characters (tabs and newlines included): used for
 * identifiers such as channel names and memory keys, which end up in logs and listings.
 * Written with escapes rather than `\p{Cc}` so the JSON Schema pattern works without the
 * unicode flag in every validator.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const NO_CONTROL_CHARACTERS = /^[^\x00-\x1F\x7F]*$/;

/**
 * Matches well-formed Unicode text: no lone surrogate (`"\ud800"` is valid JSON). Text
 * stored in a column of its own (a channel, a message, a memory key) is stored as UTF-8,
 * which cannot hold a lone surrogate: it would come back as U+FFFD, unlike what was sent;
 * text hashed or converted as UTF-8 would likewise be other bytes than the ones meant.
 * Written without the unicode flag, for the same reason as above (and right with it). It
 * looks for a high surrogate without a low one after it, or a low one without a high one
 * before it: a pattern repeating once per character, `^(?:[^\uD800-\uDFFF]|pair)*$`,
 * overflowed V8's backtracking stack on a 10-million-character text.
 */
export const WELL_FORMED_UNICODE =
  /^(?![\s\S]*(?:[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]))/;
export const WELL_FORMED_MESSAGE = "must be well-formed Unicode (no lone surrogate)";

/**
 * Matches text without U+0000 (NUL), for free text a skill stores in a column of its own
 * (a message's text): PostgreSQL's `text` cannot hold NUL, and refusing it on every store
 * gives one answer whichever store (see `src/store/nul-rule.ts`). Channel names and memory
 * keys refuse every control character already (`NO_CONTROL_CHARACTERS`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point.
export const NO_NUL = /^[^\x00]*$/;
export const NO_NUL_MESSAGE = "must not contain U+0000 (NUL)";
