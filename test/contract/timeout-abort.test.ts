import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyOf, type ExecutionRecord, eventually, serverForSuite } from "./harness.js";

/**
 * contract.md, "POST /v1/execute": when timeout_ms elapses "the skill's abort signal fires".
 * Seen from outside through a skill whose work is a connection: http.request to a local
 * server that reads the request and never answers. The record alone could say timed_out
 * while the skill ran on; the request's connection closing at the timeout shows that the
 * skill itself was stopped.
 */
describe("contract: a timeout aborts the skill itself", () => {
  const server = serverForSuite({
    env: { SKILLPORT_SKILL_CONFIG: JSON.stringify({ "http.request": { allowPrivateNetworks: true } }) },
  });
  let silent: Server;
  let silentPort = 0;
  const sockets = new Set<Socket>();
  /** The connections that carried a request: when each closed, once it has. */
  const requests: { closedAt?: number }[] = [];

  beforeAll(async () => {
    silent = createServer((socket: Socket) => {
      sockets.add(socket);
      const request: { closedAt?: number } = {};
      socket.once("data", () => requests.push(request));
      socket.on("error", () => {});
      socket.on("close", () => {
        sockets.delete(socket);
        request.closedAt = Date.now();
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("closes the skill's request when timeout_ms elapses, long before the skill's own timeout", async () => {
    const key = await server().createRoomyKey({ name: "timeout-abort" });
    const started = Date.now();
    const res = await server().request("POST", "/v1/execute", {
      key: key.secret,
      json: {
        skill_id: "http.request",
        params: { url: `http://127.0.0.1:${silentPort}/never`, timeout_ms: 60_000 },
        timeout_ms: 800,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(res)).toMatchObject({
      status: "timed_out",
      error: { code: "execution_timeout" },
    });
    expect(requests).toHaveLength(1);
    const closedAt = await eventually(async () => requests[0]?.closedAt, 5_000);
    expect(closedAt - started).toBeLessThan(5_000);
  });
});
