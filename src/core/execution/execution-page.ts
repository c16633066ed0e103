import { decodeCursor, encodeCursor } from "../cursor.js";
import type { ExecutionListQuery, ExecutionStore } from "../ports.js";
import type { StoredExecution } from "./record.js";
import { MAX_RESULT_BYTES } from "./result-size.js";

/**
 * The bytes of result JSON one page of the executions listing holds, unless its first
 * record alone holds more. A page of `limit` (≤ 100) records of up to MAX_RESULT_BYTES
 * each would be 800 MiB: past V8's largest string (about 512 MiB), so the response could
 * not even be serialised, and reading, parsing and writing it blocks the event loop for
 * seconds. Two largest results still fit on a page, and 16 MiB of JSON is parsed and
 * serialised in tens of milliseconds.
 */
const PAGE_RESULT_BYTES = 2 * MAX_RESULT_BYTES;

/** The filters of a listing: everything of a store query but its position and length. */
export type ExecutionFilters = Omit<ExecutionListQuery, "limit" | "after" | "startAt">;

/**
 * How many of the records, in listing order, go on one page: at most `limit`, and no
 * more than fit in `budgetBytes` of results, but always the first (a record larger than
 * the budget still has to be listable).
 */
function recordsThatFit(resultBytes: readonly number[], limit: number, budgetBytes: number): number {
  let held = 0;
  let total = 0;
  for (const bytes of resultBytes) {
    if (held === limit) break;
    total += bytes;
    if (held > 0 && total > budgetBytes) break;
    held++;
  }
  return held;
}

/**
 * One page of executions, newest first, and the cursor of the next. The results' sizes
 * are read first, without the results (`listResultSizes`), for one row more than the page
 * can hold (to know whether another page follows); then only the records that fit are
 * read and parsed. `next_cursor` points after the last record returned, so a client that
 * follows it sees every record exactly once, however the budget cut the pages.
 */
export async function pageOfExecutions(
  store: ExecutionStore,
  filters: ExecutionFilters,
  query: { limit: number; cursor?: string },
  budgetBytes = PAGE_RESULT_BYTES,
): Promise<{ data: StoredExecution[]; next_cursor: string | null }> {
  // The id alone places a record (the store orders by it).
  const after = query.cursor ? decodeCursor(query.cursor, "executions", ["id"] as const).id : undefined;
  const sizes = await store.listResultSizes({ ...filters, after, limit: query.limit + 1 });
  const first = sizes[0];
  if (!first) return { data: [], next_cursor: null };
  const held = recordsThatFit(
    sizes.map((size) => size.resultBytes),
    query.limit,
    budgetBytes,
  );
  // From the first sized record on, not after the cursor: a record created meanwhile
  // (newer, so above the first) does not push a sized one off the page.
  const data = await store.list({ ...filters, startAt: first.id, limit: held });
  // Retention may have deleted every record in between; the position is still right.
  const lastId = data.at(-1)?.record.id ?? sizes[held - 1]?.id;
  const next_cursor = sizes.length > held && lastId ? encodeCursor("executions", { id: lastId }) : null;
  return { data, next_cursor };
}
