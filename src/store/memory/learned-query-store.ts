import type {
  DiscoverNote,
  LearnedQuery,
  LearnedQueryCaps,
  LearnedQueryEvent,
  LearnedQueryStore,
} from "../../core/ports.js";
import { tableKey } from "./table-key.js";
import { compareText } from "./text-order.js";

/** A key's latest discover, and whether an execution claimed it (`claimFirstExecution`). */
export interface NoteEntry {
  note: DiscoverNote;
  followed: boolean;
}

/** A learned (owner, skill, query), with the discover it last counted, so that none counts twice. */
export interface LearnedEntry extends LearnedQuery {
  owner: string;
  lastDiscoveredAt: number;
}

/**
 * Each key's latest discover (by key id), and what each owner's executions followed. The
 * rules that the SQL stores state only in SQL (sqlite/learned-query-store.ts: the upsert's
 * `where`, `trimSkill`, `trimOwner`, the listing's `order by`) are written out here.
 */
export class InMemoryLearnedQueryStore implements LearnedQueryStore {
  constructor(
    private readonly notes: Map<string, NoteEntry>,
    private readonly learned: Map<string, LearnedEntry>,
  ) {}

  /** The note given last wins, whatever its time; a new note is not yet claimed. */
  async noteDiscovers(notes: readonly DiscoverNote[]): Promise<void> {
    for (const note of notes) this.notes.set(note.keyId, { note: copyOf(note), followed: false });
  }

  async lastDiscover(keyId: string): Promise<DiscoverNote | undefined> {
    const entry = this.notes.get(keyId);
    return entry && copyOf(entry.note);
  }

  async claimFirstExecution(keyId: string, discoveredAt: number): Promise<boolean> {
    const entry = this.notes.get(keyId);
    if (!entry || entry.note.at !== discoveredAt || entry.followed) return false;
    entry.followed = true;
    return true;
  }

  async record(event: LearnedQueryEvent, caps: LearnedQueryCaps): Promise<boolean> {
    const { owner, skillId, query } = event;
    const slot = tableKey(owner, skillId, query);
    const stored = this.learned.get(slot);
    // The upsert's `where learned_queries.last_discover_ms < excluded.last_discover_ms`.
    if (stored && stored.lastDiscoveredAt >= event.discoveredAt) return false;
    const count = (stored?.count ?? 0) + 1;
    this.learned.set(slot, {
      owner,
      skillId,
      query,
      count,
      lastAt: event.at,
      lastDiscoveredAt: event.discoveredAt,
    });
    // The SQL stores' trims: of the skill's, the newest by (last use, query); of the
    // owner's, the newest by (last use, skill, query). Each order tells any two apart.
    this.keepNewest(
      (entry) => entry.owner === owner && entry.skillId === skillId,
      caps.perSkill,
      (a, b) => b.lastAt - a.lastAt || compareText(b.query, a.query),
    );
    this.keepNewest(
      (entry) => entry.owner === owner,
      caps.perOwner,
      (a, b) => b.lastAt - a.lastAt || compareText(b.skillId, a.skillId) || compareText(b.query, a.query),
    );
    return true;
  }

  /** Most recently executed first; ties by skill id, then query, ascending. */
  async list(owner: string, limit: number): Promise<LearnedQuery[]> {
    return this.entriesWhere((entry) => entry.owner === owner)
      .sort(
        (a, b) => b.lastAt - a.lastAt || compareText(a.skillId, b.skillId) || compareText(a.query, b.query),
      )
      .slice(0, limit)
      .map(({ skillId, query, count, lastAt }) => ({ skillId, query, count, lastAt }));
  }

  async deleteNotesBefore(beforeMs: number): Promise<number> {
    return deleteWhere(this.notes, ({ note }) => note.at < beforeMs);
  }

  /** The owner's notes go whichever skill is forgotten: no later execution may link to them. */
  async forget(owner: string, skillId?: string): Promise<number> {
    deleteWhere(this.notes, ({ note }) => note.owner === owner);
    return deleteWhere(
      this.learned,
      (entry) => entry.owner === owner && (skillId === undefined || entry.skillId === skillId),
    );
  }

  private entriesWhere(keep: (entry: LearnedEntry) => boolean): LearnedEntry[] {
    return [...this.learned.values()].filter(keep);
  }

  /** Deletes the entries `of` selects beyond the first `cap` in `order`. */
  private keepNewest(
    of: (entry: LearnedEntry) => boolean,
    cap: number,
    order: (a: LearnedEntry, b: LearnedEntry) => number,
  ): void {
    for (const entry of this.entriesWhere(of).sort(order).slice(Math.max(0, cap))) {
      this.learned.delete(tableKey(entry.owner, entry.skillId, entry.query));
    }
  }
}

function copyOf(note: DiscoverNote): DiscoverNote {
  return { ...note, offered: [...note.offered] };
}

/** Deletes the values `doomed` selects; returns how many. */
function deleteWhere<V>(map: Map<string, V>, doomed: (value: V) => boolean): number {
  let deleted = 0;
  for (const [key, value] of map) {
    if (doomed(value)) {
      map.delete(key);
      deleted++;
    }
  }
  return deleted;
}
