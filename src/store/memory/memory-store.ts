import type { MemoryStore } from "../../core/ports.js";
import { memoryValueJson } from "../memory-value.js";
import { compareText } from "./text-order.js";

/** A stored value, as its JSON text, with when it was set. */
export interface MemoryEntry {
  json: string;
  updatedAt: string;
}

/**
 * A JSON key-value memory per owner: owner, then key, to entry. Values are kept as JSON
 * text (every read parses a copy); keys compare as the SQL stores compare them, byte-wise
 * and case-sensitively, in lookups, prefixes and ordering alike.
 */
export class InMemoryMemoryStore implements MemoryStore {
  constructor(private readonly owners: Map<string, Map<string, MemoryEntry>>) {}

  async get(owner: string, key: string): Promise<{ value: unknown; updatedAt: string } | undefined> {
    const entry = this.owners.get(owner)?.get(key);
    return entry && { value: JSON.parse(entry.json) as unknown, updatedAt: entry.updatedAt };
  }

  async set(owner: string, key: string, value: unknown, updatedAt: string): Promise<{ replaced: boolean }> {
    const json = memoryValueJson(value);
    let entries = this.owners.get(owner);
    if (!entries) {
      entries = new Map();
      this.owners.set(owner, entries);
    }
    // Nothing runs between the check and the write: no await separates them.
    const replaced = entries.has(key);
    entries.set(key, { json, updatedAt });
    return { replaced };
  }

  async delete(owner: string, key: string): Promise<boolean> {
    return this.owners.get(owner)?.delete(key) ?? false;
  }

  /** Keys after `after` (all of them without it), with the literal `prefix`, in order, up to `limit`. */
  async list(
    owner: string,
    options: { prefix?: string; after?: string; limit: number },
  ): Promise<{ key: string; updatedAt: string }[]> {
    const { prefix = "", after = "" } = options;
    return [...(this.owners.get(owner) ?? new Map<string, MemoryEntry>())]
      .filter(([key]) => key.startsWith(prefix) && compareText(key, after) > 0)
      .sort(([a], [b]) => compareText(a, b))
      .slice(0, options.limit)
      .map(([key, entry]) => ({ key, updatedAt: entry.updatedAt }));
  }
}
