// What skills keep per owner between runs: messages and memory.

import type { StoredMessage } from "../skills/skill.js";

export interface MessageStore {
  insert(owner: string, message: StoredMessage): Promise<void>;
  /**
   * Newest first. `before` is a message id of the same owner: only strictly older
   * messages are returned (an unknown id, or another owner's, returns none).
   */
  list(
    owner: string,
    options: { channel?: string; limit: number; before?: string },
  ): Promise<StoredMessage[]>;
  /** Whether the owner has a message with this id (another owner's id is not theirs). */
  has(owner: string, id: string): Promise<boolean>;
}

export interface MemoryStore {
  get(owner: string, key: string): Promise<{ value: unknown; updatedAt: string } | undefined>;
  set(owner: string, key: string, value: unknown, updatedAt: string): Promise<void>;
  delete(owner: string, key: string): Promise<boolean>;
  /** Keys in order; `after` continues a listing after that key (keyset paging). */
  list(
    owner: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<{ key: string; updatedAt: string }[]>;
}
