// Idempotency keys: a repeated execute request answers with the execution its first call made.

export interface IdempotencyEntry {
  keyId: string;
  idempotencyKey: string;
  /** SHA-256 of the request (skill, params, async, timeout) that first used the key. */
  requestHash: string;
  executionId: string;
  /** The HTTP-independent outcome kind of the first call: 'sync' answers 200, 'async' 202. */
  mode: "sync" | "async";
  createdAt: string;
  expiresAt: string;
}

export interface IdempotencyStore {
  /**
   * Stores the entry unless a live (not expired) entry exists for the same key id and
   * idempotency key; returns the existing one in that case. Atomic.
   */
  reserve(
    entry: IdempotencyEntry,
  ): Promise<{ reserved: true } | { reserved: false; existing: IdempotencyEntry }>;
  /**
   * Deletes the entry of `executionId` when it still holds the key: a reservation whose
   * execution was refused before it was stored, so that a repeat can run.
   */
  withdraw(keyId: string, idempotencyKey: string, executionId: string): Promise<void>;
  /**
   * Puts `entry` in place of the entry of the same key id and idempotency key, if that one
   * still names `abandonedExecutionId`: a reservation whose execution was never stored.
   * Atomic (one compare-and-set); true when it replaced it, false when another call did first.
   */
  takeOver(entry: IdempotencyEntry, abandonedExecutionId: string): Promise<boolean>;
}
