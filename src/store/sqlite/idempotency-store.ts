import type { IdempotencyEntry, IdempotencyStore } from "../../core/ports.js";
import { fromIdempotencyRow, type IdempotencyRow, toIdempotencyRow } from "../idempotency-row.js";
import type { BetterSqlite3 as Database } from "./driver.js";

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
  private readonly deleteOf: Database.Statement<[string, string, string]>;
  private readonly replaceAbandoned: Database.Statement<[IdempotencyRow & { abandoned: string }]>;
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
    this.deleteOf = db.prepare(
      "delete from idempotency where key_id = ? and idempotency_key = ? and execution_id = ?",
    );
    this.replaceAbandoned = db.prepare(
      `update idempotency set request_hash = @request_hash, execution_id = @execution_id, mode = @mode,
         created_at = @created_at, expires_at = @expires_at
       where key_id = @key_id and idempotency_key = @idempotency_key and execution_id = @abandoned`,
    );
    this.reserveTransaction = db.transaction((entry: IdempotencyEntry): Reservation => {
      const row = this.find.get(entry.keyId, entry.idempotencyKey);
      if (row && Date.parse(row.expires_at) > Date.parse(entry.createdAt)) {
        return { reserved: false, existing: fromIdempotencyRow(row) };
      }
      this.put.run(toIdempotencyRow(entry));
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

  async withdraw(keyId: string, idempotencyKey: string, executionId: string): Promise<void> {
    this.deleteOf.run(keyId, idempotencyKey, executionId);
  }

  async takeOver(entry: IdempotencyEntry, abandonedExecutionId: string): Promise<boolean> {
    return (
      this.replaceAbandoned.run({ ...toIdempotencyRow(entry), abandoned: abandonedExecutionId }).changes > 0
    );
  }
}
