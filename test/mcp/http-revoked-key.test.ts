import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../contract/harness.js";

/**
 * `fetch` for the SDK's client transport that tells when the session's event stream (its
 * GET) has been answered and when the server ended it.
 */
function watchingEventStream() {
  let opened!: () => void;
  let ended!: () => void;
  const streamOpened = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const streamEnded = new Promise<void>((resolve) => {
    ended = resolve;
  });
  let watched = false;
  const fetchWatching: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") !== "GET" || response.status !== 200 || !response.body || watched)
      return response;
    watched = true;
    opened();
    const body = response.body.pipeThrough(
      new TransformStream({
        flush: () => ended(),
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: fetchWatching, streamOpened, streamEnded };
}

// Regression (audit 26, security; left open in session 26): after `keys revoke`, a client's
// open GET /mcp event stream stayed open until the client ended it.
describe("/mcp sessions of a revoked key", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("end within seconds of `keys revoke`: the event stream is closed by the server", async () => {
    const { id, secret } = await server.createRoomyKey();
    const watch = watchingEventStream();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      fetch: watch.fetch,
      // Once ended, the stream is not reopened (it would be refused: the key is revoked).
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    const client = new Client({ name: "revoked-key-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await watch.streamOpened;

      let ended = false;
      void watch.streamEnded.then(() => {
        ended = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(ended).toBe(false);

      const revokedAt = Date.now();
      await server.revokeKey(id);
      // Sessions' keys are checked every 5 s: ended within that, and the CLI's own time.
      await Promise.race([watch.streamEnded, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      expect(ended).toBe(true);
      expect(Date.now() - revokedAt).toBeLessThan(10_000);
      expect(server.logs()).toContain("closed the MCP sessions of a revoked or expired key");
      await expect(client.listTools()).rejects.toThrow();
    } finally {
      await client.close().catch(() => {});
    }
  });
});
