import type pg from "pg";
import type {
  DiscoverNote,
  LearnedQuery,
  LearnedQueryCaps,
  LearnedQueryEvent,
  LearnedQueryStore,
} from "../../core/ports.js";
import { inTransaction } from "./transaction.js";

/**
 * Learning from use in `discover_notes` and `learned_queries`, shared by every replica:
 * a discover answered by one replica links to an execution on another.
 */
export class PostgresLearnedQueryStore implements LearnedQueryStore {
  constructor(private readonly pool: pg.Pool) {}

  /** One statement for the batch; of two notes of one key, the one given last wins. */
  async noteDiscovers(notes: readonly DiscoverNote[]): Promise<void> {
    if (notes.length === 0) return;
    // ON CONFLICT cannot touch a row twice in one statement: one note per key.
    const latest = new Map<string, DiscoverNote>();
    for (const note of notes) latest.set(note.keyId, note);
    const rows = [...latest.values()];
    await this.pool.query(
      `insert into discover_notes (key_id, owner, query, at_ms, offered, followed)
       select key_id, owner, query, at_ms,
         array(select jsonb_array_elements_text(offered)), false
       from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::jsonb[])
         as note (key_id, owner, query, at_ms, offered)
       on conflict (key_id) do update set owner = excluded.owner, query = excluded.query,
         at_ms = excluded.at_ms, offered = excluded.offered, followed = false`,
      [
        rows.map((note) => note.keyId),
        rows.map((note) => note.owner),
        rows.map((note) => note.query),
        rows.map((note) => note.at),
        // unnest flattens a two-dimensional array: each note's ids travel as one JSON value.
        rows.map((note) => JSON.stringify(note.offered)),
      ],
    );
  }

  async lastDiscover(keyId: string): Promise<DiscoverNote | undefined> {
    const { rows } = await this.pool.query<{
      owner: string;
      query: string;
      at_ms: string;
      offered: string[];
    }>("select owner, query, at_ms, offered from discover_notes where key_id = $1", [keyId]);
    const row = rows[0];
    // bigint comes back as a string.
    return row && { keyId, owner: row.owner, query: row.query, at: Number(row.at_ms), offered: row.offered };
  }

  async claimFirstExecution(keyId: string, discoveredAt: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `update discover_notes set followed = true
       where key_id = $1 and at_ms = $2 and not followed`,
      [keyId, discoveredAt],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The count and both trims in one transaction, as in SQLite. */
  async record(event: LearnedQueryEvent, caps: LearnedQueryCaps): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        `insert into learned_queries (owner, skill_id, query, count, last_at_ms, last_discover_ms)
         values ($1, $2, $3, 1, $4, $5)
         on conflict (owner, skill_id, query) do update set count = learned_queries.count + 1,
           last_at_ms = excluded.last_at_ms, last_discover_ms = excluded.last_discover_ms
         where learned_queries.last_discover_ms < excluded.last_discover_ms`,
        [event.owner, event.skillId, event.query, event.at, event.discoveredAt],
      );
      const counted = (rowCount ?? 0) > 0;
      if (counted) {
        await client.query(
          `delete from learned_queries where owner = $1 and skill_id = $2 and query not in (
             select query from learned_queries where owner = $1 and skill_id = $2
             order by last_at_ms desc, query desc limit $3)`,
          [event.owner, event.skillId, caps.perSkill],
        );
        await client.query(
          `delete from learned_queries where owner = $1 and (last_at_ms, skill_id, query) < (
             select last_at_ms, skill_id, query from learned_queries where owner = $1
             order by last_at_ms desc, skill_id desc, query desc limit 1 offset $2 - 1)`,
          [event.owner, caps.perOwner],
        );
      }
      return counted;
    });
  }

  async list(owner: string, limit: number): Promise<LearnedQuery[]> {
    const { rows } = await this.pool.query<{
      skill_id: string;
      query: string;
      count: number;
      last_at_ms: string;
    }>(
      `select skill_id, query, count, last_at_ms from learned_queries where owner = $1
       order by last_at_ms desc, skill_id, query limit $2`,
      [owner, limit],
    );
    return rows.map((row) => ({
      skillId: row.skill_id,
      query: row.query,
      count: row.count,
      lastAt: Number(row.last_at_ms),
    }));
  }

  async deleteNotesBefore(beforeMs: number): Promise<number> {
    const { rowCount } = await this.pool.query("delete from discover_notes where at_ms < $1", [beforeMs]);
    return rowCount ?? 0;
  }

  async forget(owner: string, skillId?: string): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      await client.query("delete from discover_notes where owner = $1", [owner]);
      const { rowCount } = await client.query(
        "delete from learned_queries where owner = $1 and ($2::text is null or skill_id = $2)",
        [owner, skillId ?? null],
      );
      return rowCount ?? 0;
    });
  }
}
