import { EXECUTION_COLUMNS, EXECUTION_UPSERT_TAIL, type ExecutionRow } from "../execution-row.js";

/**
 * One upsert of `rows` (their saves, or the records `takeQueued` starts), returning the
 * ids it wrote: a terminal record stored refuses its update. The rows are sorted by id
 * first, so that concurrent statements lock shared rows in the same order and cannot
 * deadlock one another.
 */
export function executionUpsert(rows: ExecutionRow[]): { text: string; values: unknown[] } {
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const start = values.length;
    for (const column of EXECUTION_COLUMNS) values.push(row[column]);
    return `(${EXECUTION_COLUMNS.map((_, i) => `$${start + i + 1}`).join(", ")})`;
  });
  return {
    text: `insert into executions (${EXECUTION_COLUMNS.join(", ")}) values ${tuples.join(", ")} ${EXECUTION_UPSERT_TAIL} returning id`,
    values,
  };
}
