import type { Clock } from "../../core/clock.js";
import { type ApiKey, KEY_STATUSES, keyStatus } from "../../core/keys/api-key.js";
import {
  KEY_SEARCH_FIELDS,
  type KeyCounts,
  type KeyPlace,
  type KeySearchFilter,
  keyOrderValue,
} from "../../core/keys/key-listing.js";
import type { KeyPageQuery, KeyStore } from "../../core/ports.js";
import { MarkUsedThrottle } from "../mark-used-throttle.js";
import { compareText } from "./text-order.js";

/**
 * API keys by id. The hash is unique, as the SQL stores' unique index makes it. What is
 * stored and what is returned are copies: a caller changing a key it holds changes nothing.
 */
export class InMemoryKeyStore implements KeyStore {
  /** Per store, as per process in the SQL adapters: written at most once per key per interval. */
  private readonly markUsedThrottle: MarkUsedThrottle;
  private readonly markRefusedThrottle: MarkUsedThrottle;

  constructor(
    private readonly keys: Map<string, ApiKey>,
    clock: Clock,
  ) {
    this.markUsedThrottle = new MarkUsedThrottle(clock);
    this.markRefusedThrottle = new MarkUsedThrottle(clock);
  }

  async insert(key: ApiKey): Promise<void> {
    if (this.keys.has(key.id)) throw new Error(`A key with the id ${key.id} exists already.`);
    if (this.withHash(key.hash)) throw new Error("A key with the same hash exists already.");
    if (key.replaces !== null && this.replacing(key.replaces)) {
      throw new Error(`A key replacing ${key.replaces} exists already.`);
    }
    this.keys.set(key.id, structuredClone(key));
  }

  async findByHash(hash: string): Promise<ApiKey | undefined> {
    const key = this.withHash(hash);
    return key && structuredClone(key);
  }

  async findById(id: string): Promise<ApiKey | undefined> {
    const key = this.keys.get(id);
    return key && structuredClone(key);
  }

  async findByIds(ids: readonly string[]): Promise<ApiKey[]> {
    return [...new Set(ids)].flatMap((id) => {
      const key = this.keys.get(id);
      return key ? [structuredClone(key)] : [];
    });
  }

  /** As the SQL stores' statement (`keyPageSql`): filter, order by the value then the id, continue past `after`. */
  async listPage(query: KeyPageQuery): Promise<ApiKey[]> {
    const nowMs = Date.parse(query.now);
    const placeOf = (key: ApiKey) => ({ value: keyOrderValue(query.order, key, nowMs), id: key.id });
    const sign = query.descending ? -1 : 1;
    const compare = (a: KeyPlace, b: KeyPlace) =>
      sign * (compareText(a.value, b.value) || compareText(a.id, b.id));
    const { after } = query;
    return [...this.keys.values()]
      .filter((key) => found(key, query.search))
      .filter((key) => query.status === undefined || keyStatus(key, nowMs) === query.status)
      .map((key) => ({ key, place: placeOf(key) }))
      .filter(({ place }) => !after || compare(place, after) > 0)
      .sort((a, b) => compare(a.place, b.place))
      .slice(0, query.limit)
      .map(({ key }) => structuredClone(key));
  }

  async countByStatus(search: KeySearchFilter, now: string): Promise<KeyCounts> {
    const counts = Object.fromEntries(KEY_STATUSES.map((status) => [status, 0])) as KeyCounts;
    for (const key of this.keys.values()) {
      if (found(key, search)) counts[keyStatus(key, Date.parse(now))]++;
    }
    return counts;
  }

  /** A second revocation keeps the first time, and still answers true: the key exists. */
  async revoke(id: string, revokedAt: string): Promise<boolean> {
    const key = this.keys.get(id);
    if (!key) return false;
    key.revokedAt ??= revokedAt;
    return true;
  }

  /** Never lengthens a key's life: an earlier expiry stays. */
  async roll(replacement: ApiKey & { replaces: string }, expiresAt: string): Promise<boolean> {
    if (this.replacing(replacement.replaces)) return false;
    await this.insert(replacement);
    const key = this.keys.get(replacement.replaces);
    if (key && (key.expiresAt === null || compareText(key.expiresAt, expiresAt) > 0))
      key.expiresAt = expiresAt;
    return true;
  }

  async findReplacement(id: string): Promise<ApiKey | undefined> {
    const key = this.replacing(id);
    return key && structuredClone(key);
  }

  async update(
    id: string,
    { name, plan, limits }: Pick<ApiKey, "name" | "plan" | "limits">,
  ): Promise<boolean> {
    const key = this.keys.get(id);
    if (!key) return false;
    Object.assign(key, { name, plan, limits: { ...limits } });
    return true;
  }

  /** Written at once (there is no commit to spare); never moves a key's last use backwards. */
  markUsed(id: string, usedAt: string): void {
    if (!this.markUsedThrottle.admit(id)) return;
    const key = this.keys.get(id);
    if (key && (key.lastUsedAt === null || compareText(key.lastUsedAt, usedAt) < 0)) key.lastUsedAt = usedAt;
  }

  /** As `markUsed`, for `lastRefusedAt`. */
  markRefusedUse(id: string, refusedAt: string): void {
    if (!this.markRefusedThrottle.admit(id)) return;
    const key = this.keys.get(id);
    if (key && (key.lastRefusedAt === null || compareText(key.lastRefusedAt, refusedAt) < 0)) {
      key.lastRefusedAt = refusedAt;
    }
  }

  private replacing(id: string): ApiKey | undefined {
    for (const key of this.keys.values()) if (key.replaces === id) return key;
    return undefined;
  }

  private withHash(hash: string): ApiKey | undefined {
    for (const key of this.keys.values()) if (key.hash === hash) return key;
    return undefined;
  }
}

/** Whether a search finds `key`: its shown fields hold the (lowercased) text, or it is the masked key. */
function found(key: ApiKey, search: KeySearchFilter): boolean {
  switch (search.kind) {
    case "all":
      return true;
    case "masked":
      return key.prefix === search.prefix && key.last4 === search.last4;
    case "text":
      return KEY_SEARCH_FIELDS.some((field) => key[field].toLowerCase().includes(search.text));
  }
}
