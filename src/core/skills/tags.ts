/**
 * A tag as every comparison reads it: trimmed and lower-cased, so that `Math`, `math` and
 * ` math ` name one tag in discovery's filter, in its index and in the MCP tool filter.
 */
export function normalizeTag(tag: string): string {
  return tag.trim().toLowerCase();
}

/** Tags normalized, blanks and repeats dropped, in their first order. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(normalizeTag).filter((tag) => tag.length > 0))];
}
