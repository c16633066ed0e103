import type pg from "pg";
import type { MessageStore } from "../../core/ports.js";
import type { StoredMessage } from "../../core/skills/skill.js";
import { fromMessageRow, type MessageRow } from "../message-row.js";

/**
 * Messages per owner, newest first by (created_at, id); `before` is a message id of the
 * same owner (another owner's id, or an unknown one, matches nothing), as in SQLite.
 */
export class PostgresMessageStore implements MessageStore {
  constructor(private readonly pool: pg.Pool) {}

  async insert(owner: string, message: StoredMessage): Promise<void> {
    await this.pool.query(
      "insert into messages (id, owner, channel, text, created_at) values ($1, $2, $3, $4, $5)",
      [message.id, owner, message.channel, message.text, message.createdAt],
    );
  }

  async list(
    owner: string,
    options: { channel?: string; limit: number; before?: string },
  ): Promise<StoredMessage[]> {
    const values: unknown[] = [owner];
    const conditions = ["owner = $1"];
    if (options.channel !== undefined) {
      values.push(options.channel);
      conditions.push(`channel = $${values.length}`);
    }
    if (options.before !== undefined) {
      values.push(options.before);
      // An unknown cursor makes the subquery empty, and the comparison then matches nothing.
      conditions.push(
        `(created_at, id) < (select created_at, id from messages where owner = $1 and id = $${values.length})`,
      );
    }
    values.push(options.limit);
    const { rows } = await this.pool.query<MessageRow>(
      `select id, channel, text, created_at from messages where ${conditions.join(" and ")}
       order by created_at desc, id desc limit $${values.length}`,
      values,
    );
    return rows.map(fromMessageRow);
  }

  async has(owner: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("select 1 from messages where owner = $1 and id = $2", [
      owner,
      id,
    ]);
    return (rowCount ?? 0) > 0;
  }
}
