import type { MemoryStore } from "../../core/ports.js";
import { memoryValueJson } from "../memory-value.js";
import type { BetterSqlite3 as Database } from "./driver.js";

/**
 * A JSON key-value memory per owner. Values are stored as JSON text; keys compare
 * byte-wise (case-sensitive), in lookups, prefixes and ordering alike.
 */
export class SqliteMemoryStore implements MemoryStore {
  private readonly getStatement: Database.Statement<[string, string], { value: string; updated_at: string }>;
  private readonly setStatement: Database.Statement<[string, string, string, string]>;
  private readonly setTransaction: Database.Transaction<
    (owner: string, key: string, json: string, updatedAt: string) => boolean
  >;
  private readonly deleteStatement: Database.Statement<[string, string]>;
  private readonly listAll: Database.Statement<[string, string, number], { key: string; updated_at: string }>;
  private readonly listPrefix: Database.Statement<
    [string, string, string, number],
    { key: string; updated_at: string }
  >;

  constructor(db: Database.Database) {
    this.getStatement = db.prepare("select value, updated_at from memory where owner = ? and key = ?");
    this.setStatement = db.prepare(
      `insert into memory (owner, key, value, updated_at) values (?, ?, ?, ?)
       on conflict (owner, key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    );
    const exists = db.prepare<[string, string]>("select 1 from memory where owner = ? and key = ?").pluck();
    this.setTransaction = db.transaction((owner: string, key: string, json: string, updatedAt: string) => {
      const replaced = exists.get(owner, key) !== undefined;
      this.setStatement.run(owner, key, json, updatedAt);
      return replaced;
    });
    this.deleteStatement = db.prepare("delete from memory where owner = ? and key = ?");
    // `key > ?` with "" when a listing starts: every key has at least one character.
    this.listAll = db.prepare(
      "select key, updated_at from memory where owner = ? and key > ? order by key limit ?",
    );
    // GLOB rather than LIKE: LIKE ignores ASCII case in SQLite, GLOB is case-sensitive like
    // the key lookups, and with a literal prefix it is still a range scan of the primary key.
    this.listPrefix = db.prepare(
      "select key, updated_at from memory where owner = ? and key glob ? and key > ? order by key limit ?",
    );
  }

  async get(owner: string, key: string): Promise<{ value: unknown; updatedAt: string } | undefined> {
    const row = this.getStatement.get(owner, key);
    return row && { value: JSON.parse(row.value) as unknown, updatedAt: row.updated_at };
  }

  /**
   * The check and the write in one IMMEDIATE transaction: it holds the file's write lock
   * from its start, so no other process sharing the file writes the key in between (an
   * upsert's RETURNING cannot tell an insert from an update in SQLite).
   */
  async set(owner: string, key: string, value: unknown, updatedAt: string): Promise<{ replaced: boolean }> {
    const json = memoryValueJson(value);
    return { replaced: this.setTransaction.immediate(owner, key, json, updatedAt) };
  }

  async delete(owner: string, key: string): Promise<boolean> {
    return this.deleteStatement.run(owner, key).changes > 0;
  }

  async list(
    owner: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<{ key: string; updatedAt: string }[]> {
    const after = options.after ?? "";
    const rows = options.prefix
      ? this.listPrefix.all(owner, `${escapeGlob(options.prefix)}*`, after, options.limit)
      : this.listAll.all(owner, after, options.limit);
    return rows.map((row) => ({ key: row.key, updatedAt: row.updated_at }));
  }
}

/**
 * Makes every character of `text` literal in a GLOB pattern: `*`, `?` and `[` become
 * one-character classes (`[*]`); a `]` outside a class is already literal.
 */
function escapeGlob(text: string): string {
  return text.replace(/[*?[]/g, (char) => `[${char}]`);
}
