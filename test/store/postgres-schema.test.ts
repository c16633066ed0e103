import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.js";
import type { Store } from "../../src/core/ports.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { POSTGRES_MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { openRedisLimiter } from "../../src/store/redis/index.js";
import { capturingLogger } from "../support/capturing-logger.js";
import {
  dropNamespace,
  type ScaleOutServices,
  scaleOutServices,
  skipWithoutServices,
  uniqueNamespace,
} from "../support/scale-out-services.js";
import { EVERY_KEY } from "./contract/fixtures.js";

const services = scaleOutServices();

describe("postgresql: schema migrations", () => {
  if (!services) {
    skipWithoutServices("the PostgreSQL migration tests");
    return;
  }
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const open = async (
    s: ScaleOutServices,
    namespace: { schema: string; keyPrefix: string },
    logger = silentLogger,
  ): Promise<Store> => {
    const limiter = await openRedisLimiter({ redisUrl: s.redisUrl, keyPrefix: namespace.keyPrefix });
    try {
      return await openPostgresStore({
        databaseUrl: s.databaseUrl,
        schema: namespace.schema,
        limiter,
        poolSize: 2,
        logger,
      });
    } catch (err) {
      await limiter.close();
      throw err;
    }
  };
  const query = async (sql: string, schema: string) => {
    const client = new pg.Client({ connectionString: services.databaseUrl });
    await client.connect();
    try {
      await client.query(`set search_path = ${pg.escapeIdentifier(schema)}`);
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };

  it("applies each migration exactly once when six replicas open a new database at once", async () => {
    const namespace = uniqueNamespace();
    cleanups.push(() => dropNamespace(services, namespace));
    const lines: Record<string, unknown>[] = [];
    const stores = await Promise.all(
      Array.from({ length: 6 }, () => open(services, namespace, capturingLogger(lines))),
    );
    cleanups.push(async () => {
      await Promise.all(stores.map((store) => store.close()));
    });
    for (const store of stores) expect(await store.ping()).toBe(true);
    const rows = await query(
      "select version, name from schema_migrations order by version",
      namespace.schema,
    );
    expect(rows).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
    // One info line each (audit 26, operations #6): which migrations it ran, and the version.
    const latest = POSTGRES_MIGRATIONS.length;
    const said = lines.map(({ level, store, schema_version, migrations_applied, msg }) => ({
      level,
      store,
      schema_version,
      migrations_applied,
      msg,
    }));
    const upToDate = {
      level: "info",
      store: "postgresql",
      schema_version: latest,
      migrations_applied: [],
      msg: "the store's schema is up to date",
    };
    expect(said).toHaveLength(6);
    expect(said).toContainEqual({
      ...upToDate,
      migrations_applied: POSTGRES_MIGRATIONS.map(({ version, name }) => `${version} ${name}`),
      msg: `applied ${latest} schema migrations`,
    });
    expect(said.filter((line) => line.msg === upToDate.msg)).toEqual(Array(5).fill(upToDate));
  });

  it("indexes executions by id (the primary key) and by owner and id, not by time", async () => {
    const namespace = uniqueNamespace();
    cleanups.push(() => dropNamespace(services, namespace));
    const store = await open(services, namespace);
    await store.close();
    const rows = await query(
      "select indexname from pg_indexes where schemaname = current_schema() and tablename = 'executions' order by indexname",
      namespace.schema,
    );
    expect(rows.map((row) => row.indexname)).toEqual([
      "executions_owner",
      "executions_pkey",
      "executions_unfinished",
    ]);
  });

  it("refuses a database whose schema is newer than this skillport", async () => {
    const namespace = uniqueNamespace();
    cleanups.push(() => dropNamespace(services, namespace));
    const first = await open(services, namespace);
    await first.close();
    const newer = POSTGRES_MIGRATIONS.length + 1;
    await query(
      `insert into schema_migrations (version, name) values (${newer}, 'from the future')`,
      namespace.schema,
    );
    await expect(open(services, namespace)).rejects.toThrow(/newer than this skillport knows/);
  });
});

/**
 * Audit 21 #4: since PostgreSQL 15 `public` grants no CREATE to every user; the usual set-up
 * is a schema the application's role owns, made its `search_path`. Without a configured
 * schema the store uses the connection's own, and a user that may create tables nowhere is
 * told what to do.
 */
describe("postgresql: the connection's search_path decides the schema", { timeout: 60_000 }, () => {
  if (!services) {
    skipWithoutServices("the search_path tests");
    return;
  }
  const { databaseUrl, redisUrl } = services;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A fresh database and a login role that owns nothing in it yet; the role's URL. */
  const databaseAndRole = async (): Promise<{
    url: string;
    adminUrl: string;
    admin: (sql: string) => Promise<void>;
  }> => {
    const id = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    const role = `sp_role_${id}`;
    const database = `sp_db_${id}`;
    const run = async (url: string, sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await run(databaseUrl, `create role ${role} login`);
    await run(databaseUrl, `create database ${database}`);
    const adminUrl = new URL(databaseUrl);
    adminUrl.pathname = `/${database}`;
    // PostgreSQL 15's default, made explicit so the test means the same on older servers.
    await run(adminUrl.toString(), "revoke create on schema public from public");
    cleanups.push(async () => {
      await run(databaseUrl, `drop database if exists ${database} with (force)`);
      await run(databaseUrl, `drop role if exists ${role}`);
    });
    const url = new URL(adminUrl);
    url.username = role;
    return {
      url: url.toString(),
      adminUrl: adminUrl.toString(),
      admin: (sql) => run(adminUrl.toString(), sql.replaceAll("ROLE", role)),
    };
  };

  const openAs = async (url: string): Promise<Store> => {
    const namespace = uniqueNamespace();
    const limiter = await openRedisLimiter({ redisUrl, keyPrefix: namespace.keyPrefix });
    cleanups.push(() => dropNamespace(services, namespace));
    const store = await openPostgresStore({ databaseUrl: url, limiter, poolSize: 2 }).catch(
      async (err: unknown) => {
        await limiter.close();
        throw err;
      },
    );
    cleanups.push(() => store.close());
    return store;
  };

  it("creates its tables in the schema the role's search_path names, not in public", async () => {
    const { url, admin } = await databaseAndRole();
    await admin("create schema app authorization ROLE");
    await admin("alter role ROLE set search_path = app");
    const store = await openAs(url);
    expect(await store.keys.listPage(EVERY_KEY)).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ schema: string }>(
        "select table_schema as schema from information_schema.tables where table_name = 'executions'",
      );
      expect(rows.map((row) => row.schema)).toEqual(["app"]);
    } finally {
      await client.end();
    }
  });

  it("refuses to start on an empty schema when skillport's tables are in public (an upgrade)", async () => {
    const { url, admin, adminUrl } = await databaseAndRole();
    // A deployment made before the search_path was honoured: its tables are in public.
    await (await openAs(adminUrl)).close();
    await admin("create schema app authorization ROLE");
    await admin("alter role ROLE set search_path = app");
    await expect(openAs(url)).rejects.toThrow(
      /tables are in schema "public" but the user's search_path selects "app"/,
    );
  });

  it("tells a user that may not create tables in its schema what to do", async () => {
    const { url } = await databaseAndRole();
    await expect(openAs(url)).rejects.toThrow(
      /cannot create skillport's tables in schema "public".*GRANT CREATE/,
    );
  });
});
