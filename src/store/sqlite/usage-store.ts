import type { UsageCount, UsagePoint, UsageSeriesQuery, UsageStore } from "../../core/ports.js";
import type { BetterSqlite3 as Database } from "./driver.js";

interface PointRow {
  start: number;
  accepted: number;
  limited: number;
  refused: number;
}

/**
 * Request counts in `usage_minutes`, one row per key and minute. A batch is one
 * transaction of upserts that add to the stored counts, so batches from several processes
 * sharing the file sum up. It commits without an fsync of its own (the connection runs
 * `synchronous=NORMAL`): usage is informational, and the next durable commit carries it.
 */
export class SqliteUsageStore implements UsageStore {
  private readonly upsert: Database.Statement<[UsageCount]>;
  private readonly addBatch: Database.Transaction<(counts: UsageCount[]) => void>;
  private readonly seriesOfKey: Database.Statement<[Record<string, number | string>], PointRow>;
  private readonly seriesOfAll: Database.Statement<[Record<string, number>], PointRow>;
  private readonly deleteOld: Database.Statement<[number]>;

  constructor(db: Database.Database) {
    this.upsert = db.prepare(
      `insert into usage_minutes (key_id, minute_start, accepted, limited, refused)
       values (@keyId, @minuteStart, @accepted, @limited, @refused)
       on conflict (key_id, minute_start) do update set
         accepted = accepted + excluded.accepted, limited = limited + excluded.limited,
         refused = refused + excluded.refused`,
    );
    this.addBatch = db.transaction((counts: UsageCount[]) => {
      for (const count of counts) this.upsert.run(count);
    });
    // better-sqlite3 binds every JS number as REAL: cast the bucket, or the division would
    // not truncate and every minute would be a bucket of its own.
    const series = (where: string) =>
      `select (minute_start / cast(@bucket as integer)) * cast(@bucket as integer) as start, sum(accepted) as accepted, sum(limited) as limited,
         sum(refused) as refused
       from usage_minutes where ${where} and minute_start >= @from and minute_start < @to
       group by start order by start`;
    this.seriesOfKey = db.prepare(series("key_id = @keyId"));
    this.seriesOfAll = db.prepare(series("1 = 1"));
    this.deleteOld = db.prepare("delete from usage_minutes where minute_start < ?");
  }

  async add(counts: UsageCount[]): Promise<void> {
    if (counts.length > 0) this.addBatch(counts);
  }

  async series(query: UsageSeriesQuery): Promise<UsagePoint[]> {
    const range = { bucket: query.bucketSeconds, from: query.fromSeconds, to: query.toSeconds };
    const rows =
      query.keyId === undefined
        ? this.seriesOfAll.all(range)
        : this.seriesOfKey.all({ ...range, keyId: query.keyId });
    return rows.map((row) => ({
      start: row.start,
      accepted: row.accepted,
      limited: row.limited,
      refused: row.refused,
    }));
  }

  async deleteBefore(beforeSeconds: number): Promise<number> {
    return this.deleteOld.run(beforeSeconds).changes;
  }
}
