import { normalizeTag } from "../skills/tags.js";

/**
 * The skills holding each tag, for the `tags` filter of discover. A filter is asked about
 * every skill a filtered search scans (discovery ranks the whole catalog, then narrows),
 * so it is one set lookup per tag rather than a walk over the skill's own tags.
 */
export class TagIndex {
  private readonly tagsById = new Map<string, readonly string[]>();
  private readonly idsByTag = new Map<string, Set<string>>();

  get size(): number {
    return this.tagsById.size;
  }

  has(id: string): boolean {
    return this.tagsById.has(id);
  }

  /** Sets the tags of `id` (already lowercase: document.ts), replacing any it had. */
  set(id: string, tags: readonly string[]): void {
    this.remove(id);
    this.tagsById.set(id, tags);
    for (const tag of tags) {
      let ids = this.idsByTag.get(tag);
      if (!ids) {
        ids = new Set();
        this.idsByTag.set(tag, ids);
      }
      ids.add(id);
    }
  }

  remove(id: string): void {
    for (const tag of this.tagsById.get(id) ?? []) {
      const ids = this.idsByTag.get(tag);
      ids?.delete(id);
      if (ids?.size === 0) this.idsByTag.delete(tag);
    }
    this.tagsById.delete(id);
  }

  /**
   * Accepts the skills having ALL of `tags` (case-insensitive), so that adding a tag always
   * narrows the result; undefined (no filter) for an empty list. It reads the tags as they
   * are when it is made.
   */
  filter(tags: readonly string[] | undefined): ((id: string) => boolean) | undefined {
    const wanted = [...new Set((tags ?? []).map(normalizeTag))];
    if (wanted.length === 0) return undefined;
    const sets = wanted.map((tag) => this.idsByTag.get(tag) ?? NONE).sort((a, b) => a.size - b.size);
    const [first = NONE, ...rest] = sets;
    if (rest.length === 0) return (id) => first.has(id);
    return (id) => first.has(id) && rest.every((ids) => ids.has(id));
  }
}

const NONE: ReadonlySet<string> = new Set();
