import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.js";
import type { Store } from "../../src/core/ports.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { POSTGRES_MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { openRedisLimiter } from "../../src/store/redis/index.js";
import {
  dropNamespace,
  type ScaleOutServices,
  scaleOutServices,
  skipWithoutServices,
  uniqueNamespace,
} from "../support/scale-out-services.js";

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
  ): Promise<Store> => {
    const limiter = await openRedisLimiter({ redisUrl: s.redisUrl, keyPrefix: namespace.keyPrefix });
    try {
      return await openPostgresStore({
        databaseUrl: s.databaseUrl,
        schema: namespace.schema,
        limiter,
        poolSize: 2,
        logger: silentLogger,
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
    const stores = await Promise.all(Array.from({ length: 6 }, () => open(services, namespace)));
    cleanups.push(async () => {
      await Promise.all(stores.map((store) => store.close()));
    });
    for (const store of stores) expect(await store.ping()).toBe(true);
    const rows = await query(
      "select version, name from schema_migrations order by version",
      namespace.schema,
    );
    expect(rows).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
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
