import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  scaleOutServices,
  skipWithoutServices,
  startRedis,
} from "../support/scale-out-services.js";
import { type CreatedKey, expectError, freePort, startServer, type TestServer } from "./harness.js";

const services = scaleOutServices();

/**
 * SKILLPORT_REDIS_DOWN=refuse (docs/deploy.md): while Redis is out of reach, requests that
 * need a limit decision get the contract's 503; the process itself keeps answering.
 */
describe("contract: Redis out of reach under SKILLPORT_REDIS_DOWN=refuse", { timeout: 90_000 }, () => {
  if (!services) {
    skipWithoutServices("the Redis-down contract test");
    return;
  }
  let server: TestServer;
  let key: CreatedKey;
  let dropDatabase: () => Promise<void> = async () => {};
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    const database = await createTestDatabase(services);
    dropDatabase = database.drop;
    server = await startServer({
      env: {
        SKILLPORT_DATABASE_URL: database.databaseUrl,
        SKILLPORT_REDIS_URL: `redis://127.0.0.1:${port}`,
        SKILLPORT_REDIS_DOWN: "refuse",
      },
    });
    key = await server.createRoomyKey();
    expect((await server.request("GET", "/v1/skills", { key: key.secret })).status).toBe(200);
    redis.kill("SIGKILL");
    await once(redis, "exit");
  });
  afterAll(async () => {
    redis?.kill("SIGKILL");
    await server?.stop();
    await dropDatabase();
  });

  it("answers a request that needs a limit decision 503 in the error envelope, with Retry-After", async () => {
    const res = await server.request("POST", "/v1/discover", { key: key.secret, json: { query: "send" } });
    const error = expectError(res, 503, "service_unavailable");
    expect(error.retry_after).toBeGreaterThanOrEqual(1);
    expect(res.headers.get("retry-after")).toBe(String(error.retry_after));
    expectError(await server.request("GET", "/v1/nowhere", { key: key.secret }), 503, "service_unavailable");
  });

  it("keeps /healthz and /metrics answering: the process is alive, Redis is not its liveness", async () => {
    const health = await server.request("GET", "/healthz");
    expect(health.status, health.text).toBe(200);
    const metrics = await server.request("GET", "/metrics");
    expect(metrics.status, metrics.text).toBe(200);
  });
});
