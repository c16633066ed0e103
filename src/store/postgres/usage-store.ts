import type pg from "pg";
import type { UsageCount, UsagePoint, UsageSeriesQuery, UsageStore } from "../../core/ports.js";

/**
 * Request counts in `usage_minutes`, one row per key and minute (admitted, limited, and
 * refused for a revoked or expired key). A batch is one statement
 * of upserts that add to the stored counts, so the batches of every replica sum up.
 */
export class PostgresUsageStore implements UsageStore {
  constructor(private readonly pool: pg.Pool) {}

  async add(counts: UsageCount[]): Promise<void> {
    if (counts.length === 0) return;
    // One row per (key, minute) in a statement: ON CONFLICT cannot touch a row twice.
    const merged = new Map<string, UsageCount>();
    for (const count of counts) {
      const id = `${count.keyId}\u0000${count.minuteStart}`;
      const seen = merged.get(id);
      if (seen) {
        seen.accepted += count.accepted;
        seen.limited += count.limited;
        seen.refused += count.refused;
      } else merged.set(id, { ...count });
    }
    const rows = [...merged.values()];
    await this.pool.query(
      `insert into usage_minutes (key_id, minute_start, accepted, limited, refused)
       select * from unnest($1::text[], $2::bigint[], $3::integer[], $4::integer[], $5::integer[])
       on conflict (key_id, minute_start) do update set
         accepted = usage_minutes.accepted + excluded.accepted,
         limited = usage_minutes.limited + excluded.limited,
         refused = usage_minutes.refused + excluded.refused`,
      [
        rows.map((r) => r.keyId),
        rows.map((r) => r.minuteStart),
        rows.map((r) => r.accepted),
        rows.map((r) => r.limited),
        rows.map((r) => r.refused),
      ],
    );
  }

  async series(query: UsageSeriesQuery): Promise<UsagePoint[]> {
    const values: unknown[] = [query.bucketSeconds, query.fromSeconds, query.toSeconds];
    let byKey = "";
    if (query.keyId !== undefined) {
      values.push(query.keyId);
      byKey = "and key_id = $4";
    }
    const { rows } = await this.pool.query<{
      start: string;
      accepted: string;
      limited: string;
      refused: string;
    }>(
      `select (minute_start / $1::bigint) * $1::bigint as start, sum(accepted) as accepted, sum(limited) as limited,
         sum(refused) as refused
       from usage_minutes where minute_start >= $2 and minute_start < $3 ${byKey}
       group by 1 order by 1`,
      values,
    );
    // bigint and sum() come back as strings.
    return rows.map((row) => ({
      start: Number(row.start),
      accepted: Number(row.accepted),
      limited: Number(row.limited),
      refused: Number(row.refused),
    }));
  }

  async deleteBefore(beforeSeconds: number): Promise<number> {
    const { rowCount } = await this.pool.query("delete from usage_minutes where minute_start < $1", [
      beforeSeconds,
    ]);
    return rowCount ?? 0;
  }
}
