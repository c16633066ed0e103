import type { Clock } from "../../core/clock.js";
import type { ApiKey } from "../../core/keys/api-key.js";
import type { KeyCounts, KeySearchFilter } from "../../core/keys/key-listing.js";
import type { KeyPageQuery, KeyStore } from "../../core/ports.js";
import { type KeyListDialect, keyCountSql, keyCountsOf, keyPageSql } from "../key-list.js";
import { type KeyRow, toApiKey } from "../key-row.js";
import { MarkUsedThrottle } from "../mark-used-throttle.js";
import type { ChangeSignal } from "./change-signal.js";
import type { BetterSqlite3 as Database } from "./driver.js";
import type { GroupCommit } from "./group-commit.js";

export { MARK_USED_INTERVAL_MS } from "../mark-used-throttle.js";

/**
 * A cached key is re-read at least this often, so that even a change whose signal was
 * lost (a process that died between its commit and `announce`) is seen within a second.
 */
export const KEY_CACHE_TTL_MS = 1_000;

/** How many ids one `findByIds` statement binds (SQLite bounds a statement's values). */
const IDS_CHUNK = 500;

/**
 * The key listing in SQLite. Its `lower` lowercases ASCII letters only: the name order
 * needs just that (PostgreSQL's under "C" is the same), while a search lowercases as
 * JavaScript does (`unicode_lower`, registered on the connection), so that "élan" finds
 * "Élan" as the needle, lowercased by the caller, expects.
 */
const SQLITE_KEY_LIST: KeyListDialect = {
  placeholder: () => "?",
  orders: {
    created: "created_at",
    name: "lower(name)",
    last_used: "coalesce(last_used_at, '')",
    scope: "scope",
    plan: "plan",
  },
  holds: (column, needle) => `instr(unicode_lower(${column}), ${needle}) > 0`,
};

/**
 * API keys in the `api_keys` table. Keys are read on every request, so lookups by hash
 * are cached in this process; the cache is dropped whenever the `ChangeSignal` shows
 * that any process changed a key, so a key revoked elsewhere is still refused on the
 * very next request (contract.md, "API keys").
 */
export class SqliteKeyStore implements KeyStore {
  private readonly insertStatement: Database.Statement;
  private readonly byHash: Database.Statement<[string], KeyRow>;
  private readonly byId: Database.Statement<[string], KeyRow>;
  /** The listing's statements by text: a handful, one per combination of filters and order. */
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly revokeStatement: Database.Statement<[{ id: string; revokedAt: string }]>;
  private readonly expireStatement: Database.Statement<[{ id: string; expiresAt: string }]>;
  private readonly replacementOf: Database.Statement<[string], KeyRow>;
  private readonly rollTransaction: (
    replacement: ApiKey & { replaces: string },
    expiresAt: string,
  ) => boolean;
  private readonly updateStatement: Database.Statement<
    [{ id: string; name: string; plan: string; perMinute: number; perDay: number }]
  >;
  private readonly exists: Database.Statement<[string], { found: number }>;
  private readonly markUsedStatement: Database.Statement<[{ id: string; usedAt: string }]>;
  private readonly markRefusedStatement: Database.Statement<[{ id: string; refusedAt: string }]>;
  private readonly markUsedThrottle: MarkUsedThrottle;
  private readonly markRefusedThrottle: MarkUsedThrottle;
  /** Found keys by hash, with when they were read; valid while the signal's version holds. */
  private readonly cache = new Map<string, { key: ApiKey; readAt: number }>();
  private cacheVersion = -1;

  constructor(
    private readonly db: Database.Database,
    private readonly writer: GroupCommit,
    private readonly clock: Clock,
    private readonly changes: ChangeSignal,
  ) {
    this.markUsedThrottle = new MarkUsedThrottle(clock);
    this.markRefusedThrottle = new MarkUsedThrottle(clock);
    this.insertStatement = db.prepare(
      `insert into api_keys (id, name, scope, plan, limit_per_minute, limit_per_day, environment,
         owner, hash, prefix, last4, created_at, last_used_at, last_refused_at, expires_at, revoked_at,
         replaces)
       values (@id, @name, @scope, @plan, @limitPerMinute, @limitPerDay, @environment,
         @owner, @hash, @prefix, @last4, @createdAt, @lastUsedAt, @lastRefusedAt, @expiresAt, @revokedAt,
         @replaces)
       on conflict (replaces) where replaces is not null do nothing`,
    );
    this.byHash = db.prepare("select * from api_keys where hash = ?");
    this.byId = db.prepare("select * from api_keys where id = ?");
    db.function("unicode_lower", { deterministic: true }, (text) => String(text).toLowerCase());
    this.revokeStatement = db.prepare(
      "update api_keys set revoked_at = @revokedAt where id = @id and revoked_at is null",
    );
    // Timestamps are ISO UTC with milliseconds, so text order is time order.
    this.updateStatement = db.prepare(
      `update api_keys set name = @name, plan = @plan, limit_per_minute = @perMinute,
         limit_per_day = @perDay
       where id = @id`,
    );
    this.expireStatement = db.prepare(
      `update api_keys set expires_at = @expiresAt
       where id = @id and (expires_at is null or expires_at > @expiresAt)`,
    );
    this.exists = db.prepare("select 1 as found from api_keys where id = ?");
    this.replacementOf = db.prepare("select * from api_keys where replaces = ?");
    // The unique index on `replaces` makes the second of two rolls insert nothing.
    const roll = db.transaction((replacement: ApiKey & { replaces: string }, expiresAt: string) => {
      if (this.insertStatement.run(keyValues(replacement)).changes === 0) return false;
      this.expireStatement.run({ id: replacement.replaces, expiresAt });
      return true;
    });
    this.rollTransaction = (replacement, expiresAt) => roll.immediate(replacement, expiresAt);
    // Never moves last_used_at backwards when writes from two processes cross.
    this.markUsedStatement = db.prepare(
      `update api_keys set last_used_at = @usedAt
       where id = @id and (last_used_at is null or last_used_at < @usedAt)`,
    );
    this.markRefusedStatement = db.prepare(
      `update api_keys set last_refused_at = @refusedAt
       where id = @id and (last_refused_at is null or last_refused_at < @refusedAt)`,
    );
  }

  async insert(key: ApiKey): Promise<void> {
    if (this.insertStatement.run(keyValues(key)).changes === 0) {
      throw new Error(`A key replacing ${key.replaces} exists already.`);
    }
    this.changes.announce();
  }

  async findByHash(hash: string): Promise<ApiKey | undefined> {
    const version = await this.changes.version();
    if (version !== this.cacheVersion) {
      this.cache.clear();
      this.cacheVersion = version;
    }
    const nowMs = this.clock.now();
    const cached = this.cache.get(hash);
    if (cached && nowMs - cached.readAt < KEY_CACHE_TTL_MS) return cached.key;
    const row = this.byHash.get(hash);
    // Only found keys are cached: unknown hashes (guesses) must not fill the memory.
    if (!row) return undefined;
    const key = toApiKey(row);
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(hash, { key, readAt: nowMs });
    return key;
  }

  async findById(id: string): Promise<ApiKey | undefined> {
    const row = this.byId.get(id);
    return row && toApiKey(row);
  }

  async findByIds(ids: readonly string[]): Promise<ApiKey[]> {
    const unique = [...new Set(ids)];
    const found: ApiKey[] = [];
    // In chunks: SQLite takes a bounded number of bound values in one statement.
    for (let start = 0; start < unique.length; start += IDS_CHUNK) {
      const chunk = unique.slice(start, start + IDS_CHUNK);
      const text = `select * from api_keys where id in (${chunk.map(() => "?").join(",")})`;
      found.push(...(this.statement(text).all(...chunk) as KeyRow[]).map(toApiKey));
    }
    return found;
  }

  async listPage(query: KeyPageQuery): Promise<ApiKey[]> {
    const { text, values } = keyPageSql(SQLITE_KEY_LIST, query);
    return (this.statement(text).all(...values) as KeyRow[]).map(toApiKey);
  }

  async countByStatus(search: KeySearchFilter, now: string): Promise<KeyCounts> {
    const { text, values } = keyCountSql(SQLITE_KEY_LIST, search, now);
    return keyCountsOf(this.statement(text).all(...values) as { status: string; count: number }[]);
  }

  private statement(text: string): Database.Statement {
    let statement = this.listStatements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.listStatements.set(text, statement);
    }
    return statement;
  }

  async revoke(id: string, revokedAt: string): Promise<boolean> {
    if (this.revokeStatement.run({ id, revokedAt }).changes > 0) {
      this.changes.announce();
      return true;
    }
    // Already revoked still counts as found: the port's false means "no such key".
    return this.exists.get(id) !== undefined;
  }

  async update(
    id: string,
    { name, plan, limits }: Pick<ApiKey, "name" | "plan" | "limits">,
  ): Promise<boolean> {
    if (this.updateStatement.run({ id, name, plan, ...limits }).changes === 0) return false;
    this.changes.announce();
    return true;
  }

  async roll(replacement: ApiKey & { replaces: string }, expiresAt: string): Promise<boolean> {
    if (!this.rollTransaction(replacement, expiresAt)) return false;
    this.changes.announce();
    return true;
  }

  async findReplacement(id: string): Promise<ApiKey | undefined> {
    const row = this.replacementOf.get(id);
    return row && toApiKey(row);
  }

  /**
   * Queued into the executions' group commit instead of a transaction of its own: it is
   * written on every authenticated request, and a durable commit per request would cost
   * an fsync each. At most one write per key per `MARK_USED_INTERVAL_MS` per process.
   */
  markUsed(id: string, usedAt: string): void {
    if (!this.markUsedThrottle.admit(id)) return;
    this.writer.writeDetached(`key-used:${id}`, () => {
      this.markUsedStatement.run({ id, usedAt });
    });
  }

  /**
   * As `markUsed`: a client still calling with a revoked key must not cost an fsync per
   * request either. The change signal is not announced: a refused use changes nothing
   * that authentication reads.
   */
  markRefusedUse(id: string, refusedAt: string): void {
    if (!this.markRefusedThrottle.admit(id)) return;
    this.writer.writeDetached(`key-refused:${id}`, () => {
      this.markRefusedStatement.run({ id, refusedAt });
    });
  }
}

/** A key as the insert statement's named values. */
function keyValues(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    plan: key.plan,
    limitPerMinute: key.limits.perMinute,
    limitPerDay: key.limits.perDay,
    environment: key.environment,
    owner: key.owner,
    hash: key.hash,
    prefix: key.prefix,
    last4: key.last4,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    lastRefusedAt: key.lastRefusedAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    replaces: key.replaces,
  };
}
