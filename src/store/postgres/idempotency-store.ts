import type pg from "pg";
import type { IdempotencyEntry, IdempotencyStore } from "../../core/ports.js";
import { fromIdempotencyRow, type IdempotencyRow, toIdempotencyRow } from "../idempotency-row.js";

/** Expired entries are deleted once every this many reservations (per process). */
const PRUNE_EVERY = 1000;

/**
 * Idempotency keys (contract.md, "POST /v1/execute"). "Now" for expiry is the new entry's
 * `createdAt`, as in the SQLite adapter.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private reservationsSincePrune = 0;

  constructor(private readonly pool: pg.Pool) {}

  /**
   * One statement reserves atomically: the insert takes the key, or replaces an expired
   * entry (the `where` of the conflict clause), or does nothing when a live entry holds it;
   * only then is that entry read (a second round trip, on repeats only).
   */
  async reserve(
    entry: IdempotencyEntry,
  ): Promise<{ reserved: true } | { reserved: false; existing: IdempotencyEntry }> {
    if (++this.reservationsSincePrune >= PRUNE_EVERY) {
      this.reservationsSincePrune = 0;
      this.pool.query("delete from idempotency where expires_at <= $1", [entry.createdAt]).catch(() => {
        // Pruning is housekeeping; the next one tries again.
      });
    }
    for (;;) {
      const { rowCount } = await this.pool.query({
        name: "idempotency-reserve",
        text: `insert into idempotency
                 (key_id, idempotency_key, request_hash, execution_id, mode, created_at, expires_at)
               values ($1, $2, $3, $4, $5, $6, $7)
               on conflict (key_id, idempotency_key) do update set
                 request_hash = excluded.request_hash, execution_id = excluded.execution_id,
                 mode = excluded.mode, created_at = excluded.created_at, expires_at = excluded.expires_at
               where idempotency.expires_at <= excluded.created_at`,
        values: [
          entry.keyId,
          entry.idempotencyKey,
          entry.requestHash,
          entry.executionId,
          entry.mode,
          entry.createdAt,
          entry.expiresAt,
        ],
      });
      if ((rowCount ?? 0) > 0) return { reserved: true };
      const { rows } = await this.pool.query<IdempotencyRow>(
        "select * from idempotency where key_id = $1 and idempotency_key = $2",
        [entry.keyId, entry.idempotencyKey],
      );
      // Deleted by pruning in between: reserve again.
      if (rows[0]) return { reserved: false, existing: fromIdempotencyRow(rows[0]) };
    }
  }

  async withdraw(keyId: string, idempotencyKey: string, executionId: string): Promise<void> {
    await this.pool.query(
      "delete from idempotency where key_id = $1 and idempotency_key = $2 and execution_id = $3",
      [keyId, idempotencyKey, executionId],
    );
  }

  async takeOver(entry: IdempotencyEntry, abandonedExecutionId: string): Promise<boolean> {
    const row = toIdempotencyRow(entry);
    const { rowCount } = await this.pool.query(
      `update idempotency set request_hash = $3, execution_id = $4, mode = $5, created_at = $6, expires_at = $7
       where key_id = $1 and idempotency_key = $2 and execution_id = $8`,
      [
        row.key_id,
        row.idempotency_key,
        row.request_hash,
        row.execution_id,
        row.mode,
        row.created_at,
        row.expires_at,
        abandonedExecutionId,
      ],
    );
    return (rowCount ?? 0) > 0;
  }
}
