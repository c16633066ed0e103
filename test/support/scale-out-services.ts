import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { it } from "vitest";

/** The PostgreSQL and Redis the scale-out tests use (scripts/test-services.sh starts a pair). */
export interface ScaleOutServices {
  databaseUrl: string;
  redisUrl: string;
}

const HOW = 'eval "$(scripts/test-services.sh start)" starts a throwaway pair';

/**
 * SKILLPORT_TEST_DATABASE_URL and SKILLPORT_TEST_REDIS_URL, or undefined when they are not
 * set: the scale-out tests then skip, saying why. In CI (CI set) they must run: a missing
 * variable fails instead of skipping silently.
 */
export function scaleOutServices(): ScaleOutServices | undefined {
  const databaseUrl = process.env.SKILLPORT_TEST_DATABASE_URL;
  const redisUrl = process.env.SKILLPORT_TEST_REDIS_URL;
  if (databaseUrl && redisUrl) return { databaseUrl, redisUrl };
  if (process.env.CI) {
    throw new Error(
      `CI must run the PostgreSQL + Redis tests: set SKILLPORT_TEST_DATABASE_URL and SKILLPORT_TEST_REDIS_URL (${HOW}).`,
    );
  }
  return undefined;
}

/** A skipped test whose name says why the scale-out tests did not run. */
export function skipWithoutServices(what: string): void {
  it.skip(`${what}: skipped, SKILLPORT_TEST_DATABASE_URL and SKILLPORT_TEST_REDIS_URL are not set (${HOW})`, () => {});
}

/** A schema name and Redis key prefix no other test uses. */
export function uniqueNamespace(): { schema: string; keyPrefix: string } {
  const id = randomUUID().replaceAll("-", "").slice(0, 16);
  return { schema: `test_${id}`, keyPrefix: `test:${id}:` };
}

/** Drops a test's schema and its Redis keys. */
export async function dropNamespace(
  services: ScaleOutServices,
  namespace: { schema: string; keyPrefix: string },
): Promise<void> {
  const client = new pg.Client({ connectionString: services.databaseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${pg.escapeIdentifier(namespace.schema)} cascade`);
  } finally {
    await client.end();
  }
  const redis = new Redis(services.redisUrl);
  try {
    const keys = await redis.keys(`${namespace.keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** A fresh database on the test PostgreSQL (a whole deployment's worth), and how to drop it. */
export async function createTestDatabase(
  services: ScaleOutServices,
): Promise<{ databaseUrl: string; drop(): Promise<void> }> {
  const name = `skillport_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: services.databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${pg.escapeIdentifier(name)}`);
  const url = new URL(services.databaseUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    drop: () => admin(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`),
  };
}

/**
 * A Redis of a test's own (redis-server on `port` of 127.0.0.1, nothing saved), so that it
 * can be killed; `args` are more of its options (`--requirepass`).
 */
export async function startRedis(port: number, args: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", ...args],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  while (!output.includes("Ready to accept connections")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`redis-server did not start on port ${port}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}
