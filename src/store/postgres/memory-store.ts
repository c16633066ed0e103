import type pg from "pg";
import type { MemoryStore } from "../../core/ports.js";
import { memoryValueJson } from "../memory-value.js";

/**
 * A JSON key-value memory per owner. Keys use the "C" collation (see the migrations), so
 * they compare byte-wise, case-sensitively, in lookups, prefixes and ordering, as in SQLite.
 */
export class PostgresMemoryStore implements MemoryStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(owner: string, key: string): Promise<{ value: unknown; updatedAt: string } | undefined> {
    const { rows } = await this.pool.query<{ value: unknown; updated_at: string }>(
      "select value, updated_at from memory where owner = $1 and key = $2",
      [owner, key],
    );
    const row = rows[0];
    return row && { value: row.value, updatedAt: row.updated_at };
  }

  /**
   * One statement updates the key or, when it has no value, inserts it; which of the two
   * wrote is `replaced`. An upsert (`on conflict do update`) cannot say which it did
   * short of reading `xmax`, which PostgreSQL does not document for this. Under READ
   * COMMITTED the update waits for a concurrent writer of the row and then sees its
   * outcome; the insert runs only when the update found no row, and a key another
   * transaction inserted after the statement's snapshot makes it do nothing: then neither
   * wrote, and the statement runs again, when the update finds that key.
   */
  async set(owner: string, key: string, value: unknown, updatedAt: string): Promise<{ replaced: boolean }> {
    const json = memoryValueJson(value);
    for (;;) {
      const { rows } = await this.pool.query<{ updated: boolean; inserted: boolean }>(
        `with updated as (
           update memory set value = $3, updated_at = $4 where owner = $1 and key = $2 returning 1
         ), inserted as (
           insert into memory (owner, key, value, updated_at)
           select $1, $2, $3, $4 where not exists (select from updated)
           on conflict (owner, key) do nothing returning 1
         )
         select exists (select from updated) as updated, exists (select from inserted) as inserted`,
        [owner, key, json, updatedAt],
      );
      const row = rows[0];
      if (row?.updated) return { replaced: true };
      if (row?.inserted) return { replaced: false };
    }
  }

  async delete(owner: string, key: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("delete from memory where owner = $1 and key = $2", [
      owner,
      key,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async list(
    owner: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<{ key: string; updatedAt: string }[]> {
    const after = options.after ?? "";
    const { rows } = options.prefix
      ? await this.pool.query<{ key: string; updated_at: string }>(
          // starts_with compares literally: no pattern characters to escape.
          `select key, updated_at from memory
           where owner = $1 and starts_with(key, $2) and key > $3 order by key limit $4`,
          [owner, options.prefix, after, options.limit],
        )
      : await this.pool.query<{ key: string; updated_at: string }>(
          "select key, updated_at from memory where owner = $1 and key > $2 order by key limit $3",
          [owner, after, options.limit],
        );
    return rows.map((row) => ({ key: row.key, updatedAt: row.updated_at }));
  }
}
