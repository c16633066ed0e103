/**
 * The rule memory.list and message.list share for their cursors: a listing asks its store
 * for one item more than the page holds (`fetchLimit`), and only that extra item proves
 * another page follows. A page that is merely full says nothing: when the items run out
 * exactly at its end, a cursor would send the caller to an empty page, against "null when
 * this page is the last".
 */
export function fetchLimit(limit: number): number {
  return limit + 1;
}

/** The page of at most `limit` items, and the cursor after its last item: null when nothing follows. */
export function cursorPage<T>(
  fetched: readonly T[],
  limit: number,
  cursorOf: (item: T) => string,
): { page: T[]; next: string | null } {
  const page = fetched.slice(0, limit);
  const last = page.at(-1);
  return { page, next: fetched.length > limit && last !== undefined ? cursorOf(last) : null };
}
