import type { Clock } from "../../core/clock.js";
import type { ApiKey } from "../../core/keys/api-key.js";
import type { KeyStore } from "../../core/ports.js";
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

  /** Newest first; of two created at once, the greater id first (`order by created_at desc, id desc`). */
  async list(): Promise<ApiKey[]> {
    return [...this.keys.values()]
      .sort((a, b) => compareText(b.createdAt, a.createdAt) || compareText(b.id, a.id))
      .map((key) => structuredClone(key));
  }

  /** A second revocation keeps the first time, and still answers true: the key exists. */
  async revoke(id: string, revokedAt: string): Promise<boolean> {
    const key = this.keys.get(id);
    if (!key) return false;
    key.revokedAt ??= revokedAt;
    return true;
  }

  /** Never lengthens a key's life: an earlier expiry stays. */
  async expire(id: string, expiresAt: string): Promise<boolean> {
    const key = this.keys.get(id);
    if (!key) return false;
    if (key.expiresAt === null || compareText(key.expiresAt, expiresAt) > 0) key.expiresAt = expiresAt;
    return true;
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

  private withHash(hash: string): ApiKey | undefined {
    for (const key of this.keys.values()) if (key.hash === hash) return key;
    return undefined;
  }
}
