import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { openRedisLimiter } from "../../src/store/redis/index.js";
import { scaleOutServices, skipWithoutServices, uniqueNamespace } from "../support/scale-out-services.js";
import { T0, uniqueId } from "./contract/fixtures.js";

// Start-up against a Redis that is not what SKILLPORT_REDIS_URL promises: a clear failure
// (serve exits 1 with it), never a hang or a silently wrong database (audit 26, #2 and #4).
describe("redis limiter: start-up", () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  /** A TCP server on 127.0.0.1 that accepts connections and never answers (a frozen Redis). */
  const silentServer = async (): Promise<number> => {
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.resume(); // reads (and drops) what the client sends, so its close is seen
    });
    servers.push(server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return (server.address() as { port: number }).port;
  };

  it("fails within its deadline, saying so, when Redis accepts the connection but never answers", {
    timeout: 15_000,
  }, async () => {
    const port = await silentServer();
    const startedAt = Date.now();
    await expect(openRedisLimiter({ redisUrl: `redis://127.0.0.1:${port}` })).rejects.toThrow(
      "Cannot connect to Redis at SKILLPORT_REDIS_URL: no answer within 5 s",
    );
    expect(Date.now() - startedAt).toBeLessThan(8_000);
    // The connection it gave up on is closed, not left to retry for ever.
    expect(sockets).not.toEqual([]);
    await expect.poll(() => sockets.every((socket) => socket.readableEnded)).toBe(true);
  });

  const services = scaleOutServices();
  if (!services) {
    skipWithoutServices("the Redis database check");
    return;
  }

  it("refuses a database Redis does not have instead of counting in database 0", async () => {
    const url = new URL(services.redisUrl);
    url.pathname = "/99";
    await expect(openRedisLimiter({ redisUrl: url.toString() })).rejects.toThrow(
      /Cannot connect to Redis at SKILLPORT_REDIS_URL: Redis refused SELECT 99 .*DB index is out of range/,
    );
  });

  it("counts in the database the URL names", async () => {
    const url = new URL(services.redisUrl);
    url.pathname = "/3";
    const { keyPrefix } = uniqueNamespace();
    const limiter = await openRedisLimiter({ redisUrl: url.toString(), keyPrefix });
    const inDb3 = new Redis(url.toString());
    try {
      await limiter.consume(uniqueId("bucket"), [{ limit: 3, windowSeconds: 60 }], T0);
      expect(await inDb3.keys(`${keyPrefix}*`)).not.toEqual([]);
      const keys = await inDb3.keys(`${keyPrefix}*`);
      if (keys.length > 0) await inDb3.del(...keys);
    } finally {
      inDb3.disconnect();
      await limiter.close();
    }
  });
});
