import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FreezableProxy, startFreezableProxy } from "../support/freezable-proxy.js";
import { createTestDatabase, scaleOutServices, skipWithoutServices } from "../support/scale-out-services.js";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  startServer,
  type TestServer,
} from "./harness.js";

const services = scaleOutServices();

interface Readiness {
  executions: { running: number };
}

/**
 * A replica whose LISTEN connection died without a word (a NAT's or a load balancer's
 * idle timeout, a failover) hears no signal until it notices; a cancel recorded through
 * another replica must still stop the run there (README: "A cancel stops the run wherever
 * it runs"), within a bounded time. Replica B reaches PostgreSQL through a proxy that goes
 * silent on B's listening connection alone.
 */
describe("contract: a cancel from another replica when the runner's signal connection is dead", {
  timeout: 180_000,
}, () => {
  if (!services) {
    skipWithoutServices("the lost-signals contract test");
    return;
  }
  let proxy: FreezableProxy;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestServer;
  let b: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    if (!services) return;
    database = await createTestDatabase(services);
    proxy = await startFreezableProxy(database.databaseUrl);
    const env = {
      SKILLPORT_REDIS_URL: services.redisUrl,
      SKILLPORT_REDIS_KEY_PREFIX: `lost-signals-${Date.now()}:`,
    };
    a = await startServer({ env: { ...env, SKILLPORT_DATABASE_URL: database.databaseUrl } });
    b = await startServer({ env: { ...env, SKILLPORT_DATABASE_URL: proxy.via(database.databaseUrl) } });
    key = await a.createRoomyKey({ name: "lost-signals" });
  });
  afterAll(async () => {
    proxy?.thaw();
    await a?.stop();
    await b?.stop();
    await proxy?.close();
    await database?.drop();
  });

  it("stops the run within a bounded time, though the cancel signal never reaches it", async () => {
    expect(proxy.freeze((sent) => /listen "skillport/i.test(sent))).toBe(1);
    const started = await b.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 120_000 }, timeout_ms: 120_000, async: true },
    });
    expect(started.status, started.text).toBe(202);
    const { id } = bodyOf<ExecutionRecord>(started);
    await eventually(async () => {
      const res = await b.request("GET", "/readyz");
      return bodyOf<Readiness>(res).executions.running === 1 ? true : undefined;
    });
    const cancel = await a.request("POST", `/v1/executions/${id}/cancel`, { key: key.secret });
    expect(cancel.status, cancel.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(cancel).status).toBe("cancelled");
    // The run notices within a few seconds (5 s looks); 45 s leaves room on a loaded
    // machine and is far below the skill's own 120 s.
    await eventually(
      async () => {
        const res = await b.request("GET", "/readyz");
        return bodyOf<Readiness>(res).executions.running === 0 ? true : undefined;
      },
      45_000,
      250,
    );
  });
});
