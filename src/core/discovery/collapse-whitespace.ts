/**
 * Whitespace runs as one space, ends trimmed. The model's vector depends on spacing (a
 * doubled space or a line break moves its components by up to 0.1) where the words' meaning
 * does not, so every text it reads is collapsed first: the same request spaced two ways is
 * one text, embedded, cached and learned once.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
