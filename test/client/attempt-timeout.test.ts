import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Skillport } from "../../src/client/index.js";
import { serverForSuite } from "../contract/harness.js";
import { collect, rejectionOf } from "./support.js";

/** An HTTP server on 127.0.0.1 that handles every request with `handle` (which may never answer). */
async function startStallingServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

describe("client timeoutMs: how long one attempt may take", () => {
  let stalling: Server | undefined;
  let client: Skillport | undefined;
  afterEach(async () => {
    await client?.close();
    stalling?.closeAllConnections();
    await new Promise((resolve) => (stalling ? stalling.close(resolve) : resolve(undefined)));
    client = undefined;
    stalling = undefined;
  });

  /** The error a discover call rejects with and how long it took, against a server that stalls as `handle` does. */
  async function timedFailure(
    timeoutMs: number,
    handle: (req: IncomingMessage, res: ServerResponse) => void,
  ) {
    const started = await startStallingServer(handle);
    stalling = started.server;
    client = new Skillport({ apiKey: "sk_test_any", baseUrl: started.baseUrl, timeoutMs });
    const startedMs = performance.now();
    const err = await rejectionOf(client.discover({ query: "anything" }));
    return { err, elapsedMs: performance.now() - startedMs };
  }

  // undici's own headersTimeout/bodyTimeout tick on coarse timers (~0.5 s): 100 ms took
  // about 1 s, 1500 ms about 2 s. The attempt's own timer ends it close to timeoutMs.
  it("ends an attempt whose answer never comes close to timeoutMs (200 ms: well under 900 ms), with code timeout", async () => {
    const { err, elapsedMs } = await timedFailure(200, () => {});
    expect(err).toMatchObject({ code: "timeout", status: undefined });
    expect(elapsedMs).toBeGreaterThanOrEqual(190);
    expect(elapsedMs).toBeLessThan(900);
  });

  it("ends an attempt whose body never finishes close to timeoutMs, with code timeout", async () => {
    const { err, elapsedMs } = await timedFailure(200, (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"query":');
    });
    expect(err).toMatchObject({ code: "timeout", status: undefined });
    expect(elapsedMs).toBeGreaterThanOrEqual(190);
    expect(elapsedMs).toBeLessThan(900);
  });
});

describe("client timeoutMs against the real server", () => {
  const server = serverForSuite();

  it("bounds an event stream's wait for its answer, not the stream: events keep coming past timeoutMs", async () => {
    const key = await server().createRoomyKey({ owner: "attempt-timeout" });
    const client = new Skillport({ apiKey: key.secret, baseUrl: server().baseUrl, timeoutMs: 200 });
    const caller = new AbortController(); // a signal that outlives the call
    try {
      const queued = await client.execute({ skill_id: "util.wait", params: { ms: 800 }, async: true });
      const startedMs = performance.now();
      const events = await collect(client.executionEvents(queued.id, { signal: caller.signal }));
      expect(performance.now() - startedMs).toBeGreaterThan(400);
      const last = events.at(-1);
      expect(last?.type === "status" && last.record.status).toBe("completed");
      // The stream's end lets go of the caller's signal.
      expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});
