/**
 * Orders text as both SQL stores do: byte by byte of its UTF-8 (SQLite's BINARY collation,
 * PostgreSQL's `collate "C"`), which is the order of code points. JavaScript's `<`
 * compares UTF-16 code units instead, which differs for a character past U+FFFF against
 * one of U+E000 to U+FFFF. Negative when `a` comes first, 0 when equal.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
