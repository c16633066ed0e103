import type { MessageStore } from "../../core/ports.js";
import type { StoredMessage } from "../../core/skills/skill.js";
import { compareText } from "./text-order.js";

/** A message with the owner it belongs to. */
export interface OwnedMessage {
  owner: string;
  message: StoredMessage;
}

/**
 * Messages by id (unique across owners, as the SQL stores' primary key makes it), each
 * with its owner. Listed newest first by (created_at, id).
 */
export class InMemoryMessageStore implements MessageStore {
  constructor(private readonly messages: Map<string, OwnedMessage>) {}

  async insert(owner: string, message: StoredMessage): Promise<void> {
    if (this.messages.has(message.id)) throw new Error(`A message with the id ${message.id} exists already.`);
    const { id, channel, text, createdAt } = message;
    this.messages.set(id, { owner, message: { id, channel, text, createdAt } });
  }

  /**
   * `before` is resolved within the owner: another owner's message id, or an unknown one,
   * matches nothing. (The SQL stores compare `(created_at, id)` with a subquery, which then
   * finds no row: sqlite/message-store.ts.)
   */
  async list(
    owner: string,
    options: { channel?: string; limit: number; before?: string },
  ): Promise<StoredMessage[]> {
    const cursor = options.before === undefined ? undefined : this.messages.get(options.before);
    if (options.before !== undefined && cursor?.owner !== owner) return [];
    return [...this.messages.values()]
      .filter(
        ({ owner: of, message }) =>
          of === owner &&
          (options.channel === undefined || message.channel === options.channel) &&
          (cursor === undefined || newestFirst(message, cursor.message) > 0),
      )
      .map(({ message }) => message)
      .sort(newestFirst)
      .slice(0, options.limit)
      .map((message) => ({ ...message }));
  }

  async has(owner: string, id: string): Promise<boolean> {
    return this.messages.get(id)?.owner === owner;
  }
}

/** Newest first: by `createdAt`, then by id, both descending (`order by created_at desc, id desc`). */
function newestFirst(a: StoredMessage, b: StoredMessage): number {
  return compareText(b.createdAt, a.createdAt) || compareText(b.id, a.id);
}
