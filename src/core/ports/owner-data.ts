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
  /**
   * Stores the value, replacing any. `replaced` says whether the key had a value just
   * before this write, decided by the write itself (one statement or transaction): a read
   * before it could be wrong by the time it lands, another execution or replica having
   * written or deleted the key in between.
   */
  set(owner: string, key: string, value: unknown, updatedAt: string): Promise<{ replaced: boolean }>;
  delete(owner: string, key: string): Promise<boolean>;
  /** Keys in order; `after` continues a listing after that key (keyset paging). */
  list(
    owner: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<{ key: string; updatedAt: string }[]>;
}
