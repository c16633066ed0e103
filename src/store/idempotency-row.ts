import type { IdempotencyEntry } from "../core/ports.js";

/** An `idempotency` row as both adapters read it (timestamps as ISO 8601 UTC strings). */
export interface IdempotencyRow {
  key_id: string;
  idempotency_key: string;
  request_hash: string;
  execution_id: string;
  mode: string;
  created_at: string;
  expires_at: string;
}

/** The row an entry becomes. */
export function toIdempotencyRow(entry: IdempotencyEntry): IdempotencyRow {
  return {
    key_id: entry.keyId,
    idempotency_key: entry.idempotencyKey,
    request_hash: entry.requestHash,
    execution_id: entry.executionId,
    mode: entry.mode,
    created_at: entry.createdAt,
    expires_at: entry.expiresAt,
  };
}

/** The entry a row holds. */
export function fromIdempotencyRow(row: IdempotencyRow): IdempotencyEntry {
  return {
    keyId: row.key_id,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    executionId: row.execution_id,
    // Only toIdempotencyRow writes this column, from the typed union.
    mode: row.mode as IdempotencyEntry["mode"],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
