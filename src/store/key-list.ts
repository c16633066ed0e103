import type { KeyCounts, KeyOrder, KeySearchFilter } from "../core/keys/key-listing.js";
import { KEY_SEARCH_FIELDS } from "../core/keys/key-listing.js";
import type { KeyPageQuery } from "../core/ports.js";
import type { Placeholder } from "./execution-row.js";

/** How one SQL adapter writes what the key listing's statements need. */
export interface KeyListDialect {
  placeholder: Placeholder;
  /** The expression of each order but `status` (built here), compared by code point. */
  orders: Record<Exclude<KeyOrder, "status">, string>;
  /**
   * How a place's value (text, as `keyOrderValue` gives it) is written to compare with an
   * order's expression, where the text alone would not do (PostgreSQL's timestamps); as
   * it is for the others.
   */
  orderValues?: Partial<Record<Exclude<KeyOrder, "status">, (param: string) => string>>;
  /** Whether `column`, lowercased, holds the already lowercased `needle` (a placeholder). */
  holds: (column: string, needle: string) => string;
}

/** A statement under construction: its parameters, each given the next placeholder. */
class Statement {
  readonly values: unknown[] = [];
  constructor(private readonly placeholder: Placeholder) {}
  param(value: unknown): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }
}

/**
 * A key's status at `now` in SQL: `keyStatus`'s rule (revoked before expired; expired at
 * its expiry), for listing and counting by status in the store. Timestamps are ISO 8601
 * UTC text in SQLite (text order is time order) and timestamptz in PostgreSQL.
 */
function statusSql(statement: Statement, now: string): string {
  return `(case when revoked_at is not null then 'revoked'
    when expires_at is not null and expires_at <= ${statement.param(now)} then 'expired'
    else 'active' end)`;
}

function orderSql(dialect: KeyListDialect, statement: Statement, query: KeyPageQuery): string {
  return query.order === "status" ? statusSql(statement, query.now) : dialect.orders[query.order];
}

/** The conditions of a search, or none for every key. */
function searchSql(dialect: KeyListDialect, statement: Statement, search: KeySearchFilter): string[] {
  switch (search.kind) {
    case "all":
      return [];
    case "masked":
      return [`prefix = ${statement.param(search.prefix)}`, `last4 = ${statement.param(search.last4)}`];
    case "text":
      return [
        `(${KEY_SEARCH_FIELDS.map((field) => dialect.holds(field, statement.param(search.text))).join(" or ")})`,
      ];
  }
}

/** A place's value as the statement compares it with `query.order`'s expression. */
function orderValueSql(
  dialect: KeyListDialect,
  statement: Statement,
  query: KeyPageQuery,
  value: string,
): string {
  const param = statement.param(value);
  const write = query.order === "status" ? undefined : dialect.orderValues?.[query.order];
  return write ? write(param) : param;
}

/**
 * The statement of `KeyStore.listPage`: a keyset page, past the place `after` (a value in
 * the order and an id, whether or not a key still holds it), keys equal in the order by
 * id in the same direction.
 */
export function keyPageSql(
  dialect: KeyListDialect,
  query: KeyPageQuery,
): { text: string; values: unknown[] } {
  const statement = new Statement(dialect.placeholder);
  const conditions = searchSql(dialect, statement, query.search);
  if (query.status !== undefined) {
    conditions.push(`${statusSql(statement, query.now)} = ${statement.param(query.status)}`);
  }
  const direction = query.descending ? "desc" : "asc";
  if (query.after !== undefined) {
    const past = query.descending ? "<" : ">";
    const expression = orderSql(dialect, statement, query);
    const value = orderValueSql(dialect, statement, query, query.after.value);
    conditions.push(`(${expression}, id) ${past} (${value}, ${statement.param(query.after.id)})`);
  }
  const where = conditions.length > 0 ? `where ${conditions.join(" and ")}` : "";
  const order = `${orderSql(dialect, statement, query)} ${direction}, id ${direction}`;
  return {
    text: `select * from api_keys ${where} order by ${order} limit ${statement.param(query.limit)}`,
    values: statement.values,
  };
}

/** The statement of `KeyStore.countByStatus`: rows of a status and its count. */
export function keyCountSql(
  dialect: KeyListDialect,
  search: KeySearchFilter,
  now: string,
): { text: string; values: unknown[] } {
  const statement = new Statement(dialect.placeholder);
  const status = statusSql(statement, now);
  const conditions = searchSql(dialect, statement, search);
  const where = conditions.length > 0 ? `where ${conditions.join(" and ")}` : "";
  return {
    text: `select ${status} as status, count(*) as count from api_keys ${where} group by 1`,
    values: statement.values,
  };
}

/** The counts of every status from `keyCountSql`'s rows (a status no key has is 0). */
export function keyCountsOf(rows: readonly { status: string; count: number | string }[]): KeyCounts {
  const counts: KeyCounts = { active: 0, revoked: 0, expired: 0 };
  for (const row of rows) {
    if (row.status in counts) counts[row.status as keyof typeof counts] = Number(row.count);
  }
  return counts;
}
