import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openRedisLimiter } from "../../src/store/redis/index.js";

// Start-up against a Redis that is not what SKILLPORT_REDIS_URL promises: a clear failure
// (serve exits 1 with it), never a hang (audit 26, #2).
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
});
