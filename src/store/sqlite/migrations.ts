import {
  checkSequence,
  type Migration,
  pendingMigrations,
  type SchemaMigration,
  schemaMigrated,
} from "../schema-migration.js";
import type { BetterSqlite3 as Database } from "./driver.js";

/**
 * The schema, as an append-only list: a released step is never edited, a change is a new
 * step. Tables are STRICT so a wrong type fails loudly instead of being stored as text.
 * Timestamps are ISO 8601 UTC strings with milliseconds, which sort like the instants
 * they name, so `order by created_at` is chronological.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      create table api_keys (
        id text primary key,
        name text not null,
        scope text not null,
        plan text not null,
        limit_per_minute integer not null,
        limit_per_day integer not null,
        environment text not null,
        owner text not null,
        hash text not null,
        prefix text not null,
        last4 text not null,
        created_at text not null,
        last_used_at text,
        expires_at text,
        revoked_at text
      ) strict;
      create unique index api_keys_hash on api_keys (hash);
      create index api_keys_created on api_keys (created_at, id);

      create table executions (
        id text primary key,
        owner text not null,
        key_id text not null,
        skill_id text not null,
        status text not null,
        success integer not null,
        error text,
        latency_ms real,
        result text,
        params text not null,
        async integer not null,
        timeout_ms integer not null,
        runner_id text not null,
        created_at text not null,
        started_at text,
        finished_at text
      ) strict;
      create index executions_owner_created on executions (owner, created_at, id);
      create index executions_status on executions (status);
      create index executions_finished on executions (finished_at) where finished_at is not null;

      create table runners (
        id text primary key,
        host text not null,
        pid integer not null,
        heartbeat_at integer not null
      ) strict;

      create table idempotency (
        key_id text not null,
        idempotency_key text not null,
        request_hash text not null,
        execution_id text not null,
        mode text not null,
        created_at text not null,
        expires_at text not null,
        primary key (key_id, idempotency_key)
      ) strict, without rowid;
      create index idempotency_expires on idempotency (expires_at);

      create table limit_counters (
        bucket text not null,
        window_seconds integer not null,
        window_start integer not null,
        count integer not null,
        primary key (bucket, window_seconds, window_start)
      ) strict, without rowid;
      -- For pruning by window end; an update of count never touches it.
      create index limit_counters_end on limit_counters (window_start + window_seconds);

      create table messages (
        id text primary key,
        owner text not null,
        channel text not null,
        text text not null,
        created_at text not null
      ) strict;
      create index messages_owner_created on messages (owner, created_at, id);

      create table memory (
        owner text not null,
        key text not null,
        value text not null,
        updated_at text not null,
        primary key (owner, key)
      ) strict, without rowid;
    `,
  },
  {
    version: 2,
    name: "index only unfinished executions by status",
    // The status index serves one query, finding unfinished executions (orphan recovery).
    // Indexing only those keeps every terminal record out of it: most records are written
    // once, already terminal, and then never touch this index.
    sql: `
      drop index executions_status;
      create index executions_unfinished on executions (status) where status in ('queued', 'running');
    `,
  },
  {
    version: 3,
    name: "embedding cache",
    // Vectors as little-endian float32 blobs, keyed by model and text hash (EmbeddingStore).
    sql: `
      create table embeddings (
        model text not null,
        text_hash text not null,
        vector blob not null,
        primary key (model, text_hash)
      ) strict, without rowid;
    `,
  },
  {
    version: 4,
    name: "usage per key and minute; executions by time across owners",
    // usage_minutes is written in batches off the request path (see UsageRecorder). The
    // executions index serves the dashboard's listing across every owner, newest first.
    sql: `
      create table usage_minutes (
        key_id text not null,
        minute_start integer not null,
        accepted integer not null,
        limited integer not null,
        primary key (key_id, minute_start)
      ) strict, without rowid;
      create index usage_minutes_start on usage_minutes (minute_start);
      create index executions_created on executions (created_at, id);
    `,
  },
  {
    version: 5,
    name: "learning from use: discover notes and learned queries",
    // Times in Unix milliseconds. discover_notes holds each key's latest discover (read
    // when the key executes a skill); learned_queries the (query -> skill) links per owner.
    sql: `
      create table discover_notes (
        key_id text primary key,
        owner text not null,
        query text not null,
        at_ms integer not null
      ) strict;
      create index discover_notes_at on discover_notes (at_ms);
      create table learned_queries (
        owner text not null,
        skill_id text not null,
        query text not null,
        count integer not null,
        last_at_ms integer not null,
        last_discover_ms integer not null,
        primary key (owner, skill_id, query)
      ) strict, without rowid;
      create index learned_queries_recent on learned_queries (owner, last_at_ms);
    `,
  },
  {
    version: 6,
    name: "executions in id order",
    // An execution's id begins with the millisecond of its created_at (see `newRecord`), so
    // the primary key already orders records by creation time: the listing across owners
    // and retention read it, and an owner's listing needs only (owner, id). Two indexes
    // fewer for every record written: each one cost a page write per group commit.
    sql: `
      drop index executions_created;
      drop index executions_finished;
      drop index executions_owner_created;
      create index executions_owner on executions (owner, id);
    `,
  },
  {
    version: 7,
    name: "learning from use: what a discover offered, and whether an execution followed it",
    // offered: the skill ids the discover's answer offered, as a JSON array. followed: 1 once
    // the key's first execution after the discover claimed it (reset by the next discover).
    sql: `
      alter table discover_notes add column offered text not null default '[]';
      alter table discover_notes add column followed integer not null default 0;
    `,
  },
  {
    version: 8,
    name: "requests refused because the key is revoked or expired",
    // Counted per minute beside the admitted and limited ones, and the latest one kept on
    // the key (written as last_used_at is, coalesced), so an administrator sees a client
    // still calling with a key they ended. Rows written before count none.
    sql: `
      alter table usage_minutes add column refused integer not null default 0;
      alter table api_keys add column last_refused_at text;
    `,
  },
  {
    version: 9,
    name: "the key a roll replaced",
    // Unique: a key is replaced once, however many rolls of it run at once. Keys rolled
    // before name none.
    sql: `
      alter table api_keys add column replaces text;
      create unique index api_keys_replaces on api_keys (replaces) where replaces is not null;
    `,
  },
  {
    version: 10,
    name: "embedding cache in a rowid table",
    // A vector is 2 KiB (512 floats). A WITHOUT ROWID table keeps rows in index pages,
    // which hold ~1 KiB of a row and chain the rest to overflow pages: reading a vector took
    // two or three pages and ~15 µs (4,400 of an owner's learned queries: ~70 ms on the
    // event loop, at their first search after a start). In a rowid table the row fits its
    // page, found through the small unique index: ~6 µs.
    sql: `
      create table embeddings_by_rowid (
        model text not null,
        text_hash text not null,
        vector blob not null
      ) strict;
      insert into embeddings_by_rowid (model, text_hash, vector)
        select model, text_hash, vector from embeddings;
      drop table embeddings;
      alter table embeddings_by_rowid rename to embeddings;
      create unique index embeddings_text on embeddings (model, text_hash);
    `,
  },
];

/**
 * Brings the schema up to date in one transaction. `BEGIN IMMEDIATE` takes the write lock
 * before reading `user_version`, so when two processes open a new file at once the second
 * waits, then sees the first one's version and applies nothing twice. A file written by a
 * newer version of skillport is refused rather than used with a schema this code does not
 * know.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
): SchemaMigration {
  checkSequence(migrations);
  const apply = db.transaction(() => {
    const pending = pendingMigrations(migrations, Number(db.pragma("user_version", { simple: true })));
    for (const migration of pending) {
      db.exec(migration.sql);
      // The pragma is written inside the transaction, so a failed step leaves no trace.
      db.pragma(`user_version = ${migration.version}`);
    }
    return schemaMigrated(migrations, pending);
  });
  return apply.immediate();
}
