import { z } from "zod";

/**
 * A search box's term from the query string, for a page that must answer whatever the
 * address holds: the first value when the parameter comes twice (`?q=a&q=b`), trimmed;
 * one longer than `maxLength` or not text is no search, and the page lists everything
 * rather than failing. The form's input has the same `maxlength`.
 */
export function searchTerm(maxLength: number) {
  return z
    .preprocess((value) => (Array.isArray(value) ? value[0] : value), z.string().trim().max(maxLength))
    .catch("");
}
