import type {
  DiscoverNote,
  LearnedQuery,
  LearnedQueryCaps,
  LearnedQueryEvent,
  LearnedQueryStore,
} from "../../core/ports.js";
import type { ChangeSignal } from "./change-signal.js";
import type { BetterSqlite3 as Database } from "./driver.js";

interface NoteRow {
  key_id: string;
  owner: string;
  query: string;
  at_ms: number;
  /** A JSON array of skill ids. */
  offered: string;
}

interface LearnedRow {
  skill_id: string;
  query: string;
  count: number;
  last_at_ms: number;
}

/** Keys whose latest note a process keeps in memory at most; past it, the cache starts over. */
const MAX_CACHED_NOTES = 10_000;

/**
 * Learning from use in `discover_notes` and `learned_queries`. Writes go straight to the
 * database (not through the group commit): a note or a count lost in a crash only costs a
 * little learning.
 *
 * Every execution reads its key's latest note; reading the row each time cost about a
 * tenth of an execute's CPU. The notes read are kept in memory until any process sharing
 * the file writes a note, which it announces on a `ChangeSignal` after committing: one
 * `pread` then tells whether the memory still holds. (A process of a build older than the
 * signal does not announce its notes; they are seen once another change drops the cache.)
 */
export class SqliteLearnedQueryStore implements LearnedQueryStore {
  private readonly upsertNote: Database.Statement<[Record<string, string | number>]>;
  private readonly noteBatch: Database.Transaction<(notes: readonly DiscoverNote[]) => void>;
  private readonly selectNote: Database.Statement<[string], NoteRow>;
  private readonly claimNote: Database.Statement<[string, number]>;
  private readonly recordOne: Database.Transaction<
    (event: LearnedQueryEvent, caps: LearnedQueryCaps) => boolean
  >;
  private readonly selectLearned: Database.Statement<[string, number], LearnedRow>;
  private readonly deleteNotes: Database.Statement<[number]>;
  private readonly forgetOwner: Database.Transaction<(owner: string, skillId: string | null) => number>;
  /** Keys' latest notes (or none) as read while the signal stood at `cachedVersion`. */
  private readonly cachedNotes = new Map<string, DiscoverNote | undefined>();
  private cachedVersion = -1;

  constructor(
    db: Database.Database,
    private readonly noteChanges: ChangeSignal,
  ) {
    this.upsertNote = db.prepare(
      `insert into discover_notes (key_id, owner, query, at_ms, offered, followed)
       values (@keyId, @owner, @query, @at, @offered, 0)
       on conflict (key_id) do update set owner = excluded.owner, query = excluded.query,
         at_ms = excluded.at_ms, offered = excluded.offered, followed = 0`,
    );
    this.noteBatch = db.transaction((notes: readonly DiscoverNote[]) => {
      for (const note of notes) {
        this.upsertNote.run({
          keyId: note.keyId,
          owner: note.owner,
          query: note.query,
          at: note.at,
          offered: JSON.stringify(note.offered),
        });
      }
    });
    this.selectNote = db.prepare(
      "select key_id, owner, query, at_ms, offered from discover_notes where key_id = ?",
    );
    this.claimNote = db.prepare(
      "update discover_notes set followed = 1 where key_id = ? and at_ms = ? and followed = 0",
    );
    const upsertLearned = db.prepare(
      `insert into learned_queries (owner, skill_id, query, count, last_at_ms, last_discover_ms)
       values (@owner, @skillId, @query, 1, @at, @discoveredAt)
       on conflict (owner, skill_id, query) do update set count = count + 1,
         last_at_ms = excluded.last_at_ms, last_discover_ms = excluded.last_discover_ms
       where learned_queries.last_discover_ms < excluded.last_discover_ms`,
    );
    // Keep the newest `cap` rows (by last_at_ms, then skill and query, so ties cut exactly).
    const trimSkill = db.prepare(
      `delete from learned_queries where owner = @owner and skill_id = @skillId and query not in (
         select query from learned_queries where owner = @owner and skill_id = @skillId
         order by last_at_ms desc, query desc limit @cap)`,
    );
    const trimOwner = db.prepare(
      `delete from learned_queries where owner = @owner and (last_at_ms, skill_id, query) < (
         select last_at_ms, skill_id, query from learned_queries where owner = @owner
         order by last_at_ms desc, skill_id desc, query desc limit 1 offset @cap - 1)`,
    );
    this.recordOne = db.transaction((event: LearnedQueryEvent, caps: LearnedQueryCaps) => {
      const counted = upsertLearned.run(event).changes > 0;
      if (counted) {
        trimSkill.run({ owner: event.owner, skillId: event.skillId, cap: caps.perSkill });
        trimOwner.run({ owner: event.owner, cap: caps.perOwner });
      }
      return counted;
    });
    this.selectLearned = db.prepare(
      `select skill_id, query, count, last_at_ms from learned_queries where owner = ?
       order by last_at_ms desc, skill_id, query limit ?`,
    );
    this.deleteNotes = db.prepare("delete from discover_notes where at_ms < ?");
    const deleteLearned = db.prepare<[string, string | null, string | null]>(
      "delete from learned_queries where owner = ? and (? is null or skill_id = ?)",
    );
    const deleteOwnerNotes = db.prepare<[string]>("delete from discover_notes where owner = ?");
    this.forgetOwner = db.transaction((owner: string, skillId: string | null) => {
      deleteOwnerNotes.run(owner);
      return deleteLearned.run(owner, skillId, skillId).changes;
    });
  }

  async noteDiscovers(notes: readonly DiscoverNote[]): Promise<void> {
    if (notes.length === 0) return;
    this.noteBatch(notes);
    this.noteChanges.announce();
  }

  async lastDiscover(keyId: string): Promise<DiscoverNote | undefined> {
    // The version is read before the row: a note committed after this read announces a
    // change that the next call sees, so no cached note outlives a newer one.
    const version = await this.noteChanges.version();
    if (version !== this.cachedVersion || this.cachedNotes.size >= MAX_CACHED_NOTES) {
      this.cachedNotes.clear();
      this.cachedVersion = version;
    }
    if (this.cachedNotes.has(keyId)) return this.cachedNotes.get(keyId);
    const row = this.selectNote.get(keyId);
    const note = row && {
      keyId: row.key_id,
      owner: row.owner,
      query: row.query,
      at: row.at_ms,
      offered: JSON.parse(row.offered) as string[],
    };
    this.cachedNotes.set(keyId, note);
    return note;
  }

  /** Straight to the database, never from the cache: the flag is what processes race for. */
  async claimFirstExecution(keyId: string, discoveredAt: number): Promise<boolean> {
    return this.claimNote.run(keyId, discoveredAt).changes > 0;
  }

  async record(event: LearnedQueryEvent, caps: LearnedQueryCaps): Promise<boolean> {
    return this.recordOne(event, caps);
  }

  async list(owner: string, limit: number): Promise<LearnedQuery[]> {
    return this.selectLearned.all(owner, limit).map((row) => ({
      skillId: row.skill_id,
      query: row.query,
      count: row.count,
      lastAt: row.last_at_ms,
    }));
  }

  async deleteNotesBefore(beforeMs: number): Promise<number> {
    const deleted = this.deleteNotes.run(beforeMs).changes;
    if (deleted > 0) this.noteChanges.announce();
    return deleted;
  }

  async forget(owner: string, skillId?: string): Promise<number> {
    const forgotten = this.forgetOwner(owner, skillId ?? null);
    // It deleted the owner's notes too: no process may link an execution to one.
    this.noteChanges.announce();
    return forgotten;
  }
}
