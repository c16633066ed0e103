import type { ExecutionListQuery } from "../core/ports.js";
import type { Placeholder } from "./execution-row.js";

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
  const where = (condition: (placeholder: string) => string, value: unknown) => {
    if (value === undefined) return;
    values.push(value);
    conditions.push(condition(placeholder(values.length)));
  };
  where((p) => `owner = ${p}`, query.owner);
  where((p) => `key_id = ${p}`, query.keyId);
  where((p) => `status = ${p}`, query.status);
  where((p) => `skill_id = ${p}`, query.skillId);
  where((p) => `id < ${p}`, query.after);
  where((p) => `id <= ${p}`, query.startAt);
  values.push(query.limit);
  const filter = conditions.length > 0 ? `where ${conditions.join(" and ")}` : "";
  return {
    text: `select ${columns} from executions ${filter} order by id desc limit ${placeholder(values.length)}`,
    values,
  };
}
