import type { CatalogSkill, SkillRegistry } from "../skills/registry.js";
import { DiscoveryIndex, type DiscoveryIndexOptions } from "./discovery-index.js";
import type { DiscoveryResult, DiscoverySearchOptions } from "./discovery-result.js";
import { skillToDocument } from "./document.js";

/** A discovery index that follows a registry. */
export interface Discovery {
  readonly index: DiscoveryIndex;
  search(query: string, options?: DiscoverySearchOptions): Promise<DiscoveryResult>;
  /**
   * Loads the model and embeds the catalog in the background (hybrid mode); searches are
   * answered lexically meanwhile. The promise never rejects: a failure leaves ranking lexical.
   */
  start(): Promise<void>;
  /** Stops following the registry (the index keeps its current content). */
  close(): void;
}

/**
 * Indexes every skill of the registry, then follows its `onChange` events so that a skill
 * added or removed is findable (or gone) on the very next search, without a rebuild.
 *
 * The index is built on first use (a search, `start`, or reading `index`), not when the
 * core is assembled: analysing every skill's text takes tens of milliseconds that an
 * assistant spawning `skillport mcp` would otherwise wait for before its tools/list.
 */
export function createDiscovery(registry: SkillRegistry, options: DiscoveryIndexOptions = {}): Discovery {
  let built: DiscoveryIndex | undefined;
  /** The registry's skills when `close` came before the first use: what the index then holds. */
  let atClose: CatalogSkill[] | undefined;
  let unsubscribe = (): void => {};
  const index = (): DiscoveryIndex => {
    if (built) return built;
    const fresh = new DiscoveryIndex(options);
    // Subscribe first so that no change can slip between the listing and the subscription.
    if (!atClose) {
      unsubscribe = registry.onChange((event) => {
        if (event.type === "removed") {
          fresh.remove(event.id);
          return;
        }
        const entry = registry.get(event.id);
        if (entry) fresh.add(skillToDocument(entry));
      });
    }
    for (const entry of atClose ?? registry.list()) fresh.add(skillToDocument(entry));
    built = fresh;
    return fresh;
  };
  return {
    get index() {
      return index();
    },
    search: (query, searchOptions) => index().search(query, searchOptions),
    start: async () => {
      await index().semantic?.start();
    },
    close: () => {
      if (!built) atClose = registry.list();
      unsubscribe();
    },
  };
}
