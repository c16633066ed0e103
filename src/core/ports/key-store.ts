// The API keys: who may call, with which plan and limits.

import type { ApiKey } from "../keys/api-key.js";
import type { EditableKeyField } from "../keys/key-fields.js";

export interface KeyStore {
  insert(key: ApiKey): Promise<void>;
  findByHash(hash: string): Promise<ApiKey | undefined>;
  findById(id: string): Promise<ApiKey | undefined>;
  /** All keys, newest first. */
  list(): Promise<ApiKey[]>;
  /** Sets `revokedAt` unless already revoked; false when no such key. */
  revoke(id: string, revokedAt: string): Promise<boolean>;
  /**
   * Makes the key expire at `expiresAt`, or keeps its current expiry when that is earlier
   * (a key is never given a longer life this way); false when no such key. Used by a roll.
   */
  expire(id: string, expiresAt: string): Promise<boolean>;
  /** Sets what editing may change (its name, plan and limits); false when no such key. */
  update(id: string, changes: Pick<ApiKey, EditableKeyField>): Promise<boolean>;
  /** Records use of a key; may be coalesced and written later (it is not on the critical path). */
  markUsed(id: string, usedAt: string): void;
  /**
   * Records a request refused because the key is revoked or expired (`lastRefusedAt`),
   * coalesced as `markUsed` is: a client still calling with a dead key must not cost a
   * write per request. Never moves the time backwards.
   */
  markRefusedUse(id: string, refusedAt: string): void;
}
