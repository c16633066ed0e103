import type { z } from "zod";

/**
 * Matches text without ASCII control characters (tabs and newlines included): used for
 * identifiers such as channel names and memory keys, which end up in logs and listings.
 * Written with escapes rather than `\p{Cc}` so the JSON Schema pattern works without the
 * unicode flag in every validator.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NO_CONTROL_CHARACTERS = /^[^\x00-\x1F\x7F]*$/;

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
const NO_NUL = /^[^\x00]*$/;
const NO_NUL_MESSAGE = "must not contain U+0000 (NUL)";

/** A rule a text must keep: a pattern anchored at the start, without flags, and what a text breaking it is told. */
export interface TextGuard {
  pattern: RegExp;
  message: string;
}

export const CONTROL_FREE: TextGuard = {
  pattern: NO_CONTROL_CHARACTERS,
  message: "must not contain control characters",
};
export const WELL_FORMED: TextGuard = { pattern: WELL_FORMED_UNICODE, message: WELL_FORMED_MESSAGE };
export const NUL_FREE: TextGuard = { pattern: NO_NUL, message: NO_NUL_MESSAGE };

/**
 * `text`, refusing what any of `guards` refuses, with one pattern: zod writes two `.regex()`
 * on one string as an `allOf` of two patterns in the JSON Schema, a keyword some
 * function-calling APIs refuse in a tool's parameters (Gemini's), while one lookahead per
 * guard says the same in one `pattern`. A refused text is told the message of the first
 * guard it breaks.
 */
export function guardedText(text: z.ZodString, ...guards: TextGuard[]): z.ZodString {
  for (const { pattern } of guards) {
    if (pattern.flags !== "" || !pattern.source.startsWith("^")) {
      throw new Error(`A text guard's pattern must start with ^ and have no flags: ${pattern}`);
    }
  }
  const pattern = new RegExp(`^${guards.map((guard) => `(?=${guard.pattern.source})`).join("")}`);
  return text.regex(pattern, {
    error: (issue) => guards.find((guard) => !guard.pattern.test(String(issue.input)))?.message,
  });
}
