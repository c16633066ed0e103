import type { IdempotencyEntry, IdempotencyStore } from "../../core/ports.js";
import { tableKey } from "./table-key.js";

type Reservation = { reserved: true } | { reserved: false; existing: IdempotencyEntry };

/**
 * Idempotency keys, one entry per (key id, idempotency key). "Now", for expiry, is the new
 * entry's `createdAt`, so the answer does not depend on whose clock reads it (as in SQLite).
 * Expired entries stay until replaced: this store lives no longer than a test.
 */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  constructor(private readonly entries: Map<string, IdempotencyEntry>) {}

  async reserve(entry: IdempotencyEntry): Promise<Reservation> {
    const slot = tableKey(entry.keyId, entry.idempotencyKey);
    const existing = this.entries.get(slot);
    if (existing && Date.parse(existing.expiresAt) > Date.parse(entry.createdAt)) {
      return { reserved: false, existing: { ...existing } };
    }
    this.entries.set(slot, { ...entry });
    return { reserved: true };
  }

  async withdraw(keyId: string, idempotencyKey: string, executionId: string): Promise<void> {
    const slot = tableKey(keyId, idempotencyKey);
    if (this.entries.get(slot)?.executionId === executionId) this.entries.delete(slot);
  }

  /** Expired or not: the entry names the abandoned execution, and that is all it takes. */
  async takeOver(entry: IdempotencyEntry, abandonedExecutionId: string): Promise<boolean> {
    const slot = tableKey(entry.keyId, entry.idempotencyKey);
    if (this.entries.get(slot)?.executionId !== abandonedExecutionId) return false;
    this.entries.set(slot, { ...entry });
    return true;
  }
}
