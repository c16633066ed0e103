// The API keys: who may call, with which plan and limits.

import type { ApiKey, KeyStatus } from "../keys/api-key.js";
import type { EditableKeyField } from "../keys/key-fields.js";
import type { KeyCounts, KeyOrder, KeyPlace, KeySearchFilter } from "../keys/key-listing.js";

/** One page of a key listing (see `KeyStore.listPage`). */
export interface KeyPageQuery {
  search: KeySearchFilter;
  /** Only keys of this status at `now`. */
  status?: KeyStatus;
  order: KeyOrder;
  descending: boolean;
  /**
   * Continue past this place in the order (a page with none is the first): by the value
   * and id a key had when a page ended there, so no key need hold it now (one edited,
   * used or revoked since keeps no other key off the next page, nor puts one on it twice).
   */
  after?: KeyPlace;
  limit: number;
  /** ISO 8601 UTC: the time keys' statuses are judged at (`keyStatus`). */
  now: string;
}

export interface KeyStore {
  insert(key: ApiKey): Promise<void>;
  findByHash(hash: string): Promise<ApiKey | undefined>;
  findById(id: string): Promise<ApiKey | undefined>;
  /** The keys of `ids` that exist, in no particular order, each once (one read, not one per id). */
  findByIds(ids: readonly string[]): Promise<ApiKey[]>;
  /**
   * Up to `limit` keys of the search (and status), in the order asked for, keys equal in
   * it by id in the same direction; past the place `after`, whether or not a key holds it.
   */
  listPage(query: KeyPageQuery): Promise<ApiKey[]>;
  /** How many keys of the search each status has at `now` (ISO 8601 UTC). */
  countByStatus(search: KeySearchFilter, now: string): Promise<KeyCounts>;
  /** Sets `revokedAt` unless already revoked; false when no such key. */
  revoke(id: string, revokedAt: string): Promise<boolean>;
  /**
   * A roll, in one transaction: inserts `replacement` and makes the key it `replaces` expire
   * at `expiresAt`, or keeps that key's expiry when it is earlier (a key is never given a
   * longer life this way). False, with nothing written, when a key replaces it already (it
   * was rolled before: two rolls at once make one replacement, not two).
   */
  roll(replacement: ApiKey & { replaces: string }, expiresAt: string): Promise<boolean>;
  /** The key that replaced the key `id` in a roll, if it was rolled. */
  findReplacement(id: string): Promise<ApiKey | undefined>;
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
