import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  scaleOutServices,
  skipWithoutServices,
  startRedis,
} from "../support/scale-out-services.js";
import {
  type ApiResponse,
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  eventually,
  expectError,
  freePort,
  startServer,
  type TestServer,
} from "./harness.js";

const services = scaleOutServices();

/**
 * The servers here give Redis 5 s to answer a command (SKILLPORT_REDIS_TIMEOUT_MS), and a
 * request that waits for that deadline never takes less. One answered without waiting on
 * Redis takes milliseconds, a few hundred on a loaded 2-core machine (650 ms was seen):
 * half the deadline tells the two apart with room on both sides.
 */
const REDIS_TIMEOUT_MS = 5_000;
const WITHOUT_WAITING_MS = REDIS_TIMEOUT_MS / 2;

async function timed(call: () => Promise<ApiResponse>): Promise<{ res: ApiResponse; ms: number }> {
  const started = performance.now();
  const res = await call();
  return { res, ms: performance.now() - started };
}

interface Readiness {
  status: string;
  redis?: string;
}

/** A Redis of the test's own, its database, and servers on them with `env`; all stopped by `stop`. */
async function deployment(count: number, env: Record<string, string> = {}) {
  if (!services) throw new Error("no scale-out services");
  const port = await freePort();
  const redis: ChildProcess = await startRedis(port);
  const database = await createTestDatabase(services);
  const servers: TestServer[] = [];
  for (let i = 0; i < count; i++) {
    servers.push(
      await startServer({
        env: {
          SKILLPORT_DATABASE_URL: database.databaseUrl,
          SKILLPORT_REDIS_URL: `redis://127.0.0.1:${port}`,
          SKILLPORT_REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
          ...env,
        },
      }),
    );
  }
  return {
    redis,
    servers,
    async stop() {
      // A stopped process cannot be killed until it runs again.
      redis.kill("SIGCONT");
      redis.kill("SIGKILL");
      if (redis.exitCode === null) await once(redis, "exit");
      for (const server of servers) await server.stop();
      await database.drop();
    },
  };
}

/**
 * A Redis that stops answering (its process frozen: the connection stays open) must not
 * make every request wait for the command deadline (docs/deploy.md, "When Redis is
 * unreachable"): after the first call that finds it hung, calls take the policy's answer
 * at once until Redis answers again, and health, readiness and metrics never wait on it.
 */
describe("contract: a hung Redis under SKILLPORT_REDIS_DOWN=local (the default)", { timeout: 90_000 }, () => {
  if (!services) {
    skipWithoutServices("the hung-Redis contract test");
    return;
  }
  let setup: Awaited<ReturnType<typeof deployment>> | undefined;
  let a: TestServer;
  let b: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    setup = await deployment(2);
    [a, b] = setup.servers as [TestServer, TestServer];
    // A free-plan key: every request claims its count from the store (no lease covers more than one).
    key = await a.createKey({ name: "hung-redis" });
    expect((await a.request("GET", "/v1/skills", { key: key.secret })).status).toBe(200);
    setup.redis.kill("SIGSTOP");
  });
  afterAll(async () => {
    await setup?.stop();
  });

  it("answers /healthz, /readyz and /metrics without waiting on the hung Redis, from the first request", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics"]) {
      const { res, ms } = await timed(() => a.request("GET", path));
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(ms, path).toBeLessThan(WITHOUT_WAITING_MS);
    }
  });

  it("refuses a request that is not valid HTTP without waiting on the hung Redis for its limit headers", async () => {
    // On replica B, which has not found Redis hung yet.
    const { port } = new URL(b.baseUrl);
    const started = performance.now();
    const socket = connect(Number(port), "127.0.0.1");
    socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad\u0001Header: x\r\n\r\n");
    let answer = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      answer += chunk;
    });
    await once(socket, "close");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"code":"invalid_request"');
    expect(performance.now() - started).toBeLessThan(WITHOUT_WAITING_MS);
  });

  it("after the first /v1 request that waits on it, answers the next ones without waiting, limits counted locally", async () => {
    expect((await a.request("GET", "/v1/skills", { key: key.secret })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const { res, ms } = await timed(() => a.request("GET", "/v1/skills", { key: key.secret }));
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("60");
      expect(ms).toBeLessThan(WITHOUT_WAITING_MS);
    }
    expect(a.logs().match(/Redis is unreachable: limits are counted per replica/g)).toHaveLength(1);
  });

  it("/readyz stays ready and says Redis is down; /metrics says so too", async () => {
    const { res, ms } = await timed(() => a.request("GET", "/readyz"));
    expect(res.status, res.text).toBe(200);
    expect(ms).toBeLessThan(WITHOUT_WAITING_MS);
    expect(bodyOf<Readiness>(res)).toMatchObject({ status: "ready", redis: "down" });
    expect((await a.request("GET", "/metrics")).text).toMatch(/^skillport_redis_up 0$/m);
  });

  it("shares limits across replicas again once Redis answers", async () => {
    expect((await b.request("GET", "/v1/skills", { key: key.secret })).status).toBe(200);
    setup?.redis.kill("SIGCONT");
    for (const server of [a, b]) {
      await eventually(async () => {
        const ready = bodyOf<Readiness>(await server.request("GET", "/readyz"));
        return ready.redis === "ok" ? true : undefined;
      });
    }
    expect((await a.request("GET", "/metrics")).text).toMatch(/^skillport_redis_up 1$/m);
    const shared = await a.createKey({
      name: "shared-again",
      plan: "enterprise",
      limitMinute: 4,
      limitDay: 1_000,
    });
    await awayFromMinuteBoundary(15);
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const server = i % 2 === 0 ? a : b;
      statuses.push((await server.request("GET", "/v1/skills", { key: shared.secret })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});

describe("contract: a hung Redis under SKILLPORT_REDIS_DOWN=refuse", { timeout: 90_000 }, () => {
  if (!services) {
    skipWithoutServices("the hung-Redis contract test");
    return;
  }
  let setup: Awaited<ReturnType<typeof deployment>> | undefined;
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    setup = await deployment(1, { SKILLPORT_REDIS_DOWN: "refuse" });
    [server] = setup.servers as [TestServer];
    key = await server.createKey({ name: "hung-redis-refuse" });
    expect((await server.request("GET", "/v1/skills", { key: key.secret })).status).toBe(200);
    setup.redis.kill("SIGSTOP");
  });
  afterAll(async () => {
    await setup?.stop();
  });

  it("after the first refusal, refuses at once with the contract's 503 and Retry-After, and keeps probes answering", async () => {
    expectError(await server.request("GET", "/v1/skills", { key: key.secret }), 503, "service_unavailable");
    for (let i = 0; i < 3; i++) {
      const { res, ms } = await timed(() => server.request("GET", "/v1/skills", { key: key.secret }));
      const error = expectError(res, 503, "service_unavailable");
      expect(error.retry_after).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("retry-after")).toBe(String(error.retry_after));
      expect(ms).toBeLessThan(WITHOUT_WAITING_MS);
    }
    const health = await timed(() => server.request("GET", "/healthz"));
    expect(health.res.status).toBe(200);
    expect(health.ms).toBeLessThan(WITHOUT_WAITING_MS);
    const ready = await timed(() => server.request("GET", "/readyz"));
    expect(ready.res.status, ready.res.text).toBe(200);
    expect(bodyOf<Readiness>(ready.res)).toMatchObject({ status: "ready", redis: "down" });
    expect(ready.ms).toBeLessThan(WITHOUT_WAITING_MS);
  });

  it("serves again once Redis answers", async () => {
    setup?.redis.kill("SIGCONT");
    await eventually(async () => {
      const res = await server.request("GET", "/v1/skills", { key: key.secret });
      return res.status === 200 ? true : undefined;
    });
  });
});
