import type { MessageStore } from "../../core/ports.js";
import type { StoredMessage } from "../../core/skills/skill.js";
import { fromMessageRow, type MessageRow } from "../message-row.js";
import type { BetterSqlite3 as Database } from "./driver.js";

/**
 * Messages per owner, newest first by (created_at, id). `before` is the id of a message
 * the caller already has (a cursor): the listing continues with strictly older ones. It
 * is resolved within the owner, so another owner's message id matches nothing.
 */
export class SqliteMessageStore implements MessageStore {
  private readonly insertStatement: Database.Statement<[MessageRow & { owner: string }]>;
  private readonly hasStatement: Database.Statement<[{ owner: string; id: string }]>;
  private readonly listStatements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    this.insertStatement = db.prepare(
      "insert into messages (id, owner, channel, text, created_at) values (@id, @owner, @channel, @text, @created_at)",
    );
    this.hasStatement = db.prepare("select 1 from messages where owner = @owner and id = @id");
  }

  async insert(owner: string, message: StoredMessage): Promise<void> {
    this.insertStatement.run({
      id: message.id,
      owner,
      channel: message.channel,
      text: message.text,
      created_at: message.createdAt,
    });
  }

  async list(
    owner: string,
    options: { channel?: string; limit: number; before?: string },
  ): Promise<StoredMessage[]> {
    const rows = this.listStatement(options.channel !== undefined, options.before !== undefined).all({
      owner,
      channel: options.channel,
      before: options.before,
      limit: options.limit,
    }) as MessageRow[];
    return rows.map(fromMessageRow);
  }

  async has(owner: string, id: string): Promise<boolean> {
    return this.hasStatement.get({ owner, id }) !== undefined;
  }

  /** One statement per combination of filters, prepared on first use. */
  private listStatement(byChannel: boolean, byCursor: boolean): Database.Statement {
    const shape = `${byChannel}:${byCursor}`;
    let statement = this.listStatements.get(shape);
    if (!statement) {
      const conditions = ["owner = @owner"];
      if (byChannel) conditions.push("channel = @channel");
      // An unknown cursor makes the subquery null, and the comparison then matches nothing.
      if (byCursor) {
        conditions.push(
          "(created_at, id) < (select created_at, id from messages where owner = @owner and id = @before)",
        );
      }
      statement = this.db.prepare(
        `select id, channel, text, created_at from messages where ${conditions.join(" and ")}
         order by created_at desc, id desc limit @limit`,
      );
      this.listStatements.set(shape, statement);
    }
    return statement;
  }
}
