import type pg from "pg";
import type { Clock } from "../../core/clock.js";
import type { ApiKey } from "../../core/keys/api-key.js";
import type { KeyCounts, KeySearchFilter } from "../../core/keys/key-listing.js";
import type { Logger } from "../../core/logger.js";
import type { KeyPageQuery, KeyStore } from "../../core/ports.js";
import { type KeyListDialect, keyCountSql, keyCountsOf, keyPageSql } from "../key-list.js";
import { type KeyRow, toApiKey } from "../key-row.js";
import { MarkUsedThrottle } from "../mark-used-throttle.js";

/**
 * The key listing in PostgreSQL: text compared by code point (`collate "C"`), as SQLite
 * compares it, and names lowercased under "C" (ASCII letters only), as SQLite's `lower`
 * does, so that both stores page names in the same order. A search lowercases by the
 * database's locale.
 */
const POSTGRES_KEY_LIST: KeyListDialect = {
  placeholder: (position) => `$${position}`,
  orders: {
    created: "created_at",
    name: 'lower(name collate "C")',
    // A key never used sorts before every used one, as SQLite's '' does.
    last_used: "coalesce(last_used_at, '-infinity')",
    scope: 'scope collate "C"',
    plan: 'plan collate "C"',
  },
  // A never-used key's place is "" (`keyOrderValue`), as its order value is '-infinity'.
  orderValues: {
    created: (param) => `${param}::timestamptz`,
    last_used: (param) => `coalesce(nullif(${param}, '')::timestamptz, '-infinity')`,
  },
  holds: (column, needle) => `strpos(lower(${column}), ${needle}) > 0`,
};

const INSERT_KEY = `insert into api_keys (id, name, scope, plan, limit_per_minute, limit_per_day,
    environment, owner, hash, prefix, last4, created_at, last_used_at, last_refused_at, expires_at,
    revoked_at, replaces)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`;

/** A key as `INSERT_KEY`'s values. */
function keyValues(key: ApiKey): unknown[] {
  return [
    key.id,
    key.name,
    key.scope,
    key.plan,
    key.limits.perMinute,
    key.limits.perDay,
    key.environment,
    key.owner,
    key.hash,
    key.prefix,
    key.last4,
    key.createdAt,
    key.lastUsedAt,
    key.lastRefusedAt,
    key.expiresAt,
    key.revokedAt,
    key.replaces,
  ];
}

/**
 * API keys in `api_keys`. Every lookup reads the database (one indexed round trip), with
 * no cache in the process: that is what makes a key revoked through any replica refused
 * by every replica on its very next request (contract.md, "API keys"), with nothing to
 * invalidate and no window in which a notification is still on its way.
 */
export class PostgresKeyStore implements KeyStore {
  private readonly markUsedThrottle: MarkUsedThrottle;
  private readonly markRefusedThrottle: MarkUsedThrottle;

  constructor(
    private readonly pool: pg.Pool,
    clock: Clock,
    private readonly logger: Logger,
  ) {
    this.markUsedThrottle = new MarkUsedThrottle(clock);
    this.markRefusedThrottle = new MarkUsedThrottle(clock);
  }

  async insert(key: ApiKey): Promise<void> {
    await this.pool.query(INSERT_KEY, keyValues(key));
  }

  async findByHash(hash: string): Promise<ApiKey | undefined> {
    const { rows } = await this.pool.query<KeyRow>({
      name: "key-by-hash",
      text: "select * from api_keys where hash = $1",
      values: [hash],
    });
    return rows[0] && toApiKey(rows[0]);
  }

  async findById(id: string): Promise<ApiKey | undefined> {
    const { rows } = await this.pool.query<KeyRow>("select * from api_keys where id = $1", [id]);
    return rows[0] && toApiKey(rows[0]);
  }

  async findByIds(ids: readonly string[]): Promise<ApiKey[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<KeyRow>("select * from api_keys where id = any($1)", [
      [...new Set(ids)],
    ]);
    return rows.map(toApiKey);
  }

  async listPage(query: KeyPageQuery): Promise<ApiKey[]> {
    const { rows } = await this.pool.query<KeyRow>(keyPageSql(POSTGRES_KEY_LIST, query));
    return rows.map(toApiKey);
  }

  async countByStatus(search: KeySearchFilter, now: string): Promise<KeyCounts> {
    const { rows } = await this.pool.query<{ status: string; count: string }>(
      keyCountSql(POSTGRES_KEY_LIST, search, now),
    );
    return keyCountsOf(rows);
  }

  async revoke(id: string, revokedAt: string): Promise<boolean> {
    // Already revoked still counts as found: the port's false means "no such key".
    const { rows } = await this.pool.query<{ found: boolean }>(
      `with revoked as (update api_keys set revoked_at = $2 where id = $1 and revoked_at is null)
       select exists (select 1 from api_keys where id = $1) as found`,
      [id, revokedAt],
    );
    return rows[0]?.found === true;
  }

  async update(
    id: string,
    { name, plan, limits }: Pick<ApiKey, "name" | "plan" | "limits">,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `update api_keys set name = $2, plan = $3, limit_per_minute = $4, limit_per_day = $5
       where id = $1`,
      [id, name, plan, limits.perMinute, limits.perDay],
    );
    return rowCount === 1;
  }

  async roll(replacement: ApiKey & { replaces: string }, expiresAt: string): Promise<boolean> {
    // One statement, so one transaction: the unique index on `replaces` makes the second of
    // two rolls insert nothing, and then expire nothing. Only ever earlier: a key is never
    // given a longer life this way.
    const { rows } = await this.pool.query<{ rolled: boolean }>(
      `with inserted as (${INSERT_KEY} on conflict (replaces) where replaces is not null do nothing returning id),
       expired as (
         update api_keys set expires_at = $18
         where id = $17 and exists (select 1 from inserted) and (expires_at is null or expires_at > $18))
       select exists (select 1 from inserted) as rolled`,
      [...keyValues(replacement), expiresAt],
    );
    return rows[0]?.rolled === true;
  }

  async findReplacement(id: string): Promise<ApiKey | undefined> {
    const { rows } = await this.pool.query<KeyRow>("select * from api_keys where replaces = $1", [id]);
    return rows[0] && toApiKey(rows[0]);
  }

  /** Not awaited by anyone: at most one write per key per interval per process. */
  markUsed(id: string, usedAt: string): void {
    if (!this.markUsedThrottle.admit(id)) return;
    this.pool
      .query(
        // Never moves last_used_at backwards when writes from two replicas cross.
        `update api_keys set last_used_at = $2
         where id = $1 and (last_used_at is null or last_used_at < $2)`,
        [id, usedAt],
      )
      .catch((err: unknown) => this.logger.warn({ err, key_id: id }, "could not record a key's last use"));
  }

  /** As `markUsed`: at most one write per key per interval per process, awaited by no one. */
  markRefusedUse(id: string, refusedAt: string): void {
    if (!this.markRefusedThrottle.admit(id)) return;
    this.pool
      .query(
        `update api_keys set last_refused_at = $2
         where id = $1 and (last_refused_at is null or last_refused_at < $2)`,
        [id, refusedAt],
      )
      .catch((err: unknown) =>
        this.logger.warn({ err, key_id: id }, "could not record a refused use of a revoked or expired key"),
      );
  }
}
