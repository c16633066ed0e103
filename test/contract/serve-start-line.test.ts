import { afterAll, describe, expect, it } from "vitest";
import { packageVersion } from "../../src/package-files.js";
import {
  createTestDatabase,
  dropNamespace,
  scaleOutServices,
  skipWithoutServices,
  uniqueNamespace,
} from "../support/scale-out-services.js";
import { startServer, type TestServer } from "./harness.js";

/** The JSON log line whose `msg` is `msg`. */
function logLine(server: TestServer, msg: string): Record<string, unknown> | undefined {
  for (const line of server.logs().split("\n")) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed.msg === msg) return parsed;
  }
  return undefined;
}

// Audit 26, finding 6: an operator checks from the logs which database and Redis a replica
// joined (staging or production?) and which version a rolling deploy runs.
describe("serve: the start-up line names the version, the database and Redis", () => {
  const services = scaleOutServices();
  if (!services) {
    skipWithoutServices("the start-up line on PostgreSQL + Redis");
    return;
  }
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it("with PostgreSQL and Redis: their hosts, ports, database and db, never a user or password", async () => {
    const database = await createTestDatabase(services);
    cleanups.push(database.drop);
    const namespace = uniqueNamespace();
    cleanups.push(() => dropNamespace(services, namespace));
    // The throwaway PostgreSQL trusts every connection: the password is only there to be left out.
    const withPassword = new URL(database.databaseUrl);
    withPassword.username = "skillport";
    withPassword.password = "pw123secret";
    withPassword.search = "?application_name=replica";
    const redisDb2 = new URL(services.redisUrl);
    redisDb2.pathname = "/2";
    const server = await startServer({
      env: {
        SKILLPORT_DATABASE_URL: withPassword.toString(),
        SKILLPORT_REDIS_URL: redisDb2.toString(),
        SKILLPORT_REDIS_KEY_PREFIX: namespace.keyPrefix,
      },
    });
    cleanups.unshift(() => server.stop());
    await expect.poll(() => logLine(server, "skillport is listening")).toBeDefined();
    const line = logLine(server, "skillport is listening");
    const pgUrl = new URL(database.databaseUrl);
    expect(line).toMatchObject({
      version: packageVersion(),
      store: "postgresql",
      limits: "redis",
      database: `postgres://${pgUrl.host}${pgUrl.pathname}`,
      redis: `redis://${redisDb2.host}/2`,
      redis_key_prefix: namespace.keyPrefix,
      redis_down: "local",
    });
    expect(server.logs()).not.toContain("pw123secret");
    expect(JSON.stringify(line)).not.toContain("skillport@");
  });
});
