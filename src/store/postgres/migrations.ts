import pg from "pg";
import {
  checkSequence,
  type Migration,
  pendingMigrations,
  type SchemaMigration,
  schemaMigrated,
} from "../schema-migration.js";

const { escapeIdentifier } = pg;

/**
 * The PostgreSQL schema, as an append-only list (a released step is never edited; a change
 * is a new step). Identifiers and keys that are ordered or compared use the "C" collation,
 * so they sort byte-wise whatever the database's locale, exactly as in SQLite. Timestamps
 * are `timestamptz`; JSON is `json` (kept as written, key order included).
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      create table api_keys (
        id text collate "C" primary key,
        name text not null,
        scope text not null,
        plan text not null,
        limit_per_minute integer not null,
        limit_per_day integer not null,
        environment text not null,
        owner text not null,
        hash text not null unique,
        prefix text not null,
        last4 text not null,
        created_at timestamptz not null,
        last_used_at timestamptz,
        expires_at timestamptz,
        revoked_at timestamptz
      );
      create index api_keys_created on api_keys (created_at desc, id desc);

      create table executions (
        id text collate "C" primary key,
        owner text collate "C" not null,
        key_id text not null,
        skill_id text collate "C" not null,
        status text not null,
        success boolean not null,
        error json,
        latency_ms double precision,
        result json,
        params json not null,
        async boolean not null,
        timeout_ms integer not null,
        runner_id text not null,
        created_at timestamptz not null,
        started_at timestamptz,
        finished_at timestamptz
      );
      create index executions_owner_created on executions (owner, created_at desc, id desc);
      -- Unfinished executions only: orphan recovery and the shared queue read these.
      create index executions_unfinished on executions (status, created_at)
        where status in ('queued', 'running');
      create index executions_finished on executions (finished_at) where finished_at is not null;

      create table runners (
        id text primary key,
        host text not null,
        pid integer not null,
        heartbeat_at bigint not null
      );

      create table idempotency (
        key_id text not null,
        idempotency_key text not null,
        request_hash text not null,
        execution_id text not null,
        mode text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (key_id, idempotency_key)
      );
      create index idempotency_expires on idempotency (expires_at);

      create table messages (
        id text collate "C" primary key,
        owner text collate "C" not null,
        channel text not null,
        text text not null,
        created_at timestamptz not null
      );
      create index messages_owner_created on messages (owner, created_at desc, id desc);

      create table memory (
        owner text collate "C" not null,
        key text collate "C" not null,
        value json not null,
        updated_at timestamptz not null,
        primary key (owner, key)
      );
    `,
  },
  {
    version: 2,
    name: "embedding cache",
    // Vectors as little-endian float32 bytes, keyed by model and text hash (EmbeddingStore).
    sql: `
      create table embeddings (
        model text not null,
        text_hash text not null,
        vector bytea not null,
        primary key (model, text_hash)
      );
    `,
  },
  {
    version: 3,
    name: "usage per key and minute; executions by time across owners",
    sql: `
      create table usage_minutes (
        key_id text not null,
        minute_start bigint not null,
        accepted integer not null,
        limited integer not null,
        primary key (key_id, minute_start)
      );
      create index usage_minutes_start on usage_minutes (minute_start);
      create index executions_created on executions (created_at desc, id desc);
    `,
  },
  {
    version: 4,
    name: "learning from use: discover notes and learned queries",
    // Times in Unix milliseconds, as in SQLite; see LearnedQueryStore.
    sql: `
      create table discover_notes (
        key_id text collate "C" primary key,
        owner text collate "C" not null,
        query text not null,
        at_ms bigint not null
      );
      create index discover_notes_at on discover_notes (at_ms);
      create table learned_queries (
        owner text collate "C" not null,
        skill_id text collate "C" not null,
        query text collate "C" not null,
        count integer not null,
        last_at_ms bigint not null,
        last_discover_ms bigint not null,
        primary key (owner, skill_id, query)
      );
      create index learned_queries_recent on learned_queries (owner, last_at_ms);
    `,
  },
  {
    version: 5,
    name: "executions in id order",
    // As SQLite's migration 6: an execution's id begins with its created_at, so the
    // primary key orders records by time (ids compare bytewise, collate "C").
    sql: `
      drop index executions_created;
      drop index executions_finished;
      drop index executions_owner_created;
      create index executions_owner on executions (owner, id);
    `,
  },
  {
    version: 6,
    name: "learning from use: what a discover offered, and whether an execution followed it",
    // As SQLite's migration 7 (offered as an array rather than JSON text).
    sql: `
      alter table discover_notes
        add column offered text[] not null default '{}',
        add column followed boolean not null default false;
    `,
  },
  {
    version: 7,
    name: "requests refused because the key is revoked or expired",
    // As SQLite's migration 8.
    sql: `
      alter table usage_minutes add column refused integer not null default 0;
      alter table api_keys add column last_refused_at timestamptz;
    `,
  },
  {
    version: 8,
    name: "the key a roll replaced",
    // As SQLite's migration 9.
    sql: `
      alter table api_keys add column replaces text;
      create unique index api_keys_replaces on api_keys (replaces) where replaces is not null;
    `,
  },
];

/**
 * Brings `schema` (the connection's `search_path`) up to date in one transaction under a
 * transaction-scoped advisory lock: when several replicas start at once, one migrates
 * (creating the schema if it does not exist) while the others wait for the lock, then
 * find the versions applied and apply nothing twice. A schema written by a newer
 * skillport is refused. Returns the version and the migrations applied.
 */
export async function migratePostgres(
  client: pg.ClientBase,
  schema: string,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<SchemaMigration> {
  checkSequence(migrations);
  await client.query("begin");
  try {
    await client.query("select pg_advisory_xact_lock(hashtext('skillport.migrate.' || $1::text))", [schema]);
    // Created only when missing: `create schema if not exists` needs CREATE on the database
    // even for a schema that exists, which a user with a schema of its own lacks.
    const { rowCount } = await client.query("select 1 from pg_namespace where nspname = $1", [schema]);
    if (!rowCount) await client.query(`create schema ${escapeIdentifier(schema)}`);
    await client.query(
      `create table if not exists schema_migrations (
         version integer primary key,
         name text not null,
         applied_at timestamptz not null default now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      "select max(version) as version from schema_migrations",
    );
    const pending = pendingMigrations(migrations, rows[0]?.version ?? 0);
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query("insert into schema_migrations (version, name) values ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("commit");
    return schemaMigrated(migrations, pending);
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  }
}
