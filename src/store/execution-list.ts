import type { ExecutionListQuery } from "../core/ports.js";
import type { ExecutionRow, Placeholder } from "./execution-row.js";

/**
 * The filters of `ExecutionStore.list`: which column each compares to its value, and how.
 * Records are listed newest first, by id (see `ExecutionStore.list`), so a cursor's
 * records are those with a smaller id. The one statement of the rules: the SQL adapters
 * build their statement from it (`executionListSql`), the in-memory one its filter.
 */
export const EXECUTION_LIST_FILTERS = [
  { filter: "owner", column: "owner", operator: "=" },
  { filter: "keyId", column: "key_id", operator: "=" },
  { filter: "status", column: "status", operator: "=" },
  { filter: "skillId", column: "skill_id", operator: "=" },
  { filter: "after", column: "id", operator: "<" },
  { filter: "startAt", column: "id", operator: "<=" },
] as const satisfies readonly {
  filter: Exclude<keyof ExecutionListQuery, "limit">;
  column: keyof ExecutionRow;
  operator: "=" | "<" | "<=";
}[];

/**
 * The statement listing `columns` of the records `query` selects, newest first (by id,
 * see `ExecutionStore.list`), and its parameters. Its text depends only on which filters
 * are set, so an adapter may keep one prepared statement per text.
 */
export function executionListSql(
  query: ExecutionListQuery,
  columns: string,
  placeholder: Placeholder,
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions: string[] = [];
  for (const { filter, column, operator } of EXECUTION_LIST_FILTERS) {
    const value = query[filter];
    if (value === undefined) continue;
    values.push(value);
    conditions.push(`${column} ${operator} ${placeholder(values.length)}`);
  }
  values.push(query.limit);
  const where = conditions.length > 0 ? `where ${conditions.join(" and ")}` : "";
  return {
    text: `select ${columns} from executions ${where} order by id desc limit ${placeholder(values.length)}`,
    values,
  };
}
