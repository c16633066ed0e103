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

  async set(owner: string, key: string, value: unknown, updatedAt: string): Promise<void> {
    const json = memoryValueJson(value);
    await this.pool.query(
      `insert into memory (owner, key, value, updated_at) values ($1, $2, $3, $4)
       on conflict (owner, key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [owner, key, json, updatedAt],
    );
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
