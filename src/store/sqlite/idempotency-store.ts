import type Database from "better-sqlite3";
import type { IdempotencyEntry, IdempotencyStore } from "../../core/ports.js";

interface IdempotencyRow {
  key_id: string;
  idempotency_key: string;
  request_hash: string;
  execution_id: string;
  mode: string;
  created_at: string;
  expires_at: string;
}

type Reservation = { reserved: true } | { reserved: false; existing: IdempotencyEntry };

/** Expired entries are deleted once every this many reservations. */
const PRUNE_EVERY = 1000;

/**
 * Idempotency keys (contract.md, "POST /v1/execute"), one row per (key id, idempotency
 * key). "Now" for expiry is the new entry's `createdAt`, so the answer does not depend on
 * which process's clock reads it.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly find: Database.Statement<[string, string], IdempotencyRow>;
  private readonly put: Database.Statement<[IdempotencyRow]>;
  private readonly pruneExpired: Database.Statement<[string]>;
  private readonly reserveTransaction: Database.Transaction<(entry: IdempotencyEntry) => Reservation>;
  private reservationsSincePrune = 0;

  constructor(db: Database.Database) {
    this.find = db.prepare("select * from idempotency where key_id = ? and idempotency_key = ?");
    // "or replace" overwrites an expired entry: the check before it ran under the same lock.
    this.put = db.prepare(
      `insert or replace into idempotency
         (key_id, idempotency_key, request_hash, execution_id, mode, created_at, expires_at)
       values (@key_id, @idempotency_key, @request_hash, @execution_id, @mode, @created_at, @expires_at)`,
    );
    this.pruneExpired = db.prepare("delete from idempotency where expires_at <= ?");
    this.reserveTransaction = db.transaction((entry: IdempotencyEntry): Reservation => {
      const row = this.find.get(entry.keyId, entry.idempotencyKey);
      if (row && Date.parse(row.expires_at) > Date.parse(entry.createdAt)) {
        return { reserved: false, existing: fromRow(row) };
      }
      this.put.run(toRow(entry));
      return { reserved: true };
    });
  }

  /**
   * Check and insert run in one IMMEDIATE transaction, so two processes racing with the
   * same key cannot both reserve it.
   */
  async reserve(entry: IdempotencyEntry): Promise<Reservation> {
    const reservation = this.reserveTransaction.immediate(entry);
    if (++this.reservationsSincePrune >= PRUNE_EVERY) {
      this.reservationsSincePrune = 0;
      this.pruneExpired.run(entry.createdAt);
    }
    return reservation;
  }
}

function toRow(entry: IdempotencyEntry): IdempotencyRow {
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

function fromRow(row: IdempotencyRow): IdempotencyEntry {
  return {
    keyId: row.key_id,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    executionId: row.execution_id,
    // Only toRow writes this column, from the typed union.
    mode: row.mode as IdempotencyEntry["mode"],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
