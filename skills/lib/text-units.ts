/**
 * Linear-time counting of text units for `text.stats`. Intl.Segmenter would be the
 * textbook tool, but iterating its segments is quadratic in V8 (Node 20-22): a
 * million-character text takes minutes (Node 20.20: 300,000 characters, 108 s). Segmenting
 * fixed-size chunks would be linear but is 20 times slower than the patterns below (0.7 s
 * against 36 ms for a million characters). These patterns avoid nested unbounded
 * quantifiers, so they stay linear on any input.
 */

/**
 * Runs of letters, marks and digits, joined by inner apostrophes or hyphens ("isn't",
 * "well-known"), and by a dot or comma between digits: a decimal point or a thousands
 * separator is inside one number ("3.14", "1,000", "1.234,56"), which was counted as two
 * words. Every joiner starts a new repetition and no run holds one, so matching is linear.
 */
export const WORD = /[\p{L}\p{M}\p{N}]+(?:['’-][\p{L}\p{M}\p{N}]+|(?<=\p{N})[.,]\p{N}[\p{L}\p{M}\p{N}]*)*/gu;

/**
 * Approximates Unicode grapheme clusters (UAX #29, what a reader counts as one character):
 * CR LF, a regional-indicator pair (a flag), or a base character with the combining marks,
 * variation selectors, skin-tone modifiers and zero-width joiners that follow it (GB9).
 * A joiner draws the next character in only between pictographs (GB11: emoji families);
 * joining whatever followed it, spaces included, counted "a\u200d \u200d " as one
 * character of which two were spaces. So whitespace always starts its own cluster, and
 * text.stats can subtract whitespace characters from clusters without going below zero.
 */
const GRAPHEME =
  /\r\n|\p{Regional_Indicator}{2}|\p{Extended_Pictographic}(?:[\p{M}\p{Emoji_Modifier}]|\u200D\p{Extended_Pictographic}?)*|[^\p{M}\u200D][\p{M}\p{Emoji_Modifier}\u200D]*|[\p{M}\u200D]+/gu;

/**
 * Where one sentence ends and the next starts: terminal punctuation (and closing quotes
 * or brackets) followed by whitespace, CJK full stops, or a blank line. A lower-case
 * letter next continues the sentence ("e.g. this", "Well… maybe", '"Stop!" he said'),
 * however many spaces come first, except right after "!" or "?": "word! word! word!" is
 * three sentences (it was one). The look-behind scans back over a run of closing quotes:
 * `(?=\s)` tries it only where whitespace follows, so a long run is scanned once, not
 * from every position inside it (quadratic: 200,000 quotes took 23 s).
 */
const SENTENCE_BREAK =
  /(?<=[!?])\s+|(?=\s)(?<=[.!?…]['"’”)\]]*)\s+(?![\s\p{Ll}])|(?<=[。！？])|(?:\r?\n|\r)[^\S\r\n]*(?:\r?\n|\r)/u;

const PARAGRAPH_BREAK = /(?:\r?\n|\r)\s*(?:\r?\n|\r)/;
const HAS_WORD = /[\p{L}\p{N}]/u;

export function countGraphemes(text: string): number {
  let count = 0;
  for (const _ of text.matchAll(GRAPHEME)) count += 1;
  return count;
}

export function countSentences(text: string): number {
  return text.split(SENTENCE_BREAK).filter((part) => HAS_WORD.test(part)).length;
}

/** Lines of the text: a final line break ends the last line, it does not start another ("a\nb\n" has 2). */
export function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /(?:\r\n|\r|\n)$/.test(text) ? breaks : breaks + 1;
}

export function countParagraphs(text: string): number {
  return text.split(PARAGRAPH_BREAK).filter((block) => block.trim() !== "").length;
}
