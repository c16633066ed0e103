import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  exitCodeWithin,
  type Json,
  openRawConnection,
  sleep,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import { type ConnectedClient, connectMcp } from "./mcp-clients.js";
import { textOf } from "./tool-result-text.js";

/** Resolves once `count` executions of the key are running. */
function untilRunning(server: TestServer, key: CreatedKey, count: number): Promise<ExecutionRecord[]> {
  return eventually(async () => {
    const res = await server.request("GET", "/v1/executions?status=running", { key: key.secret });
    const running = bodyOf<{ data: ExecutionRecord[] }>(res).data;
    return running.length >= count ? running : undefined;
  });
}

/** A tool call; one never answered fails within the test's time. */
const call = (mcp: ConnectedClient, name: string, args: Json) =>
  mcp.client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 }) as Promise<CallToolResult>;

/**
 * A call over HTTP, and when the server has it: the client's POST resolves once the
 * response's headers arrive, which the transport sends after handing the call to its
 * handler. A signal sent before then would rightly have the call refused (503).
 */
function callReceived(mcp: ConnectedClient, name: string, args: Json) {
  const transport = mcp.client.transport;
  if (!transport) throw new Error("the client is not connected");
  const send = transport.send.bind(transport);
  let markReceived: (sent: Promise<void>) => void = () => {};
  const received = new Promise<void>((resolve, reject) => {
    markReceived = (sent) => sent.then(resolve, reject);
  });
  transport.send = (message, options) => {
    const sent = send(message, options);
    if ("method" in message && message.method === "tools/call") {
      transport.send = send;
      markReceived(sent);
    }
    return sent;
  };
  return { answer: call(mcp, name, args), received };
}
/** Starts a 30 s run handed back still running (`wait_ms: 0`); its execution id. */
async function startLongRun(mcp: ConnectedClient): Promise<string> {
  const started = await call(mcp, "execute_skill", {
    skill_id: "util.wait",
    params: { ms: 30_000 },
    wait_ms: 0,
  });
  return (started.structuredContent as unknown as ExecutionRecord).id;
}

// README, "Reliability": on SIGTERM the server stops accepting requests, lets running
// executions finish until the deadline and ends the rest `execution_interrupted`. `/mcp`
// calls in flight are answered as REST requests are (regression: closing the sessions at
// once aborted their handlers, which cancelled the executions and answered nothing).
describe("/mcp on SIGTERM", { timeout: 60_000 }, () => {
  it("answers the tool calls in flight with their results, and the process exits 0", async () => {
    const server = await startServer();
    try {
      const key = await server.createRoomyKey({ name: "mcp-shutdown" });
      const mcp = await connectMcp("http", server, key.secret);
      const own = call(mcp, "util_wait", { ms: 1500 });
      const waited = call(mcp, "execute_skill", {
        skill_id: "util.wait",
        params: { ms: 1500 },
        wait_ms: 20_000,
      });
      await untilRunning(server, key, 2);
      const signalledAt = Date.now();
      server.child.kill("SIGTERM");
      expect((await own).structuredContent).toEqual({ waited_ms: 1500 });
      const result = await waited;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toEqual({ waited_ms: 1500 });
      expect(await exitCodeWithin(server, 9_000 - (Date.now() - signalledAt))).toBe(0);
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  it("answers calls whose executions outlast the deadline execution_interrupted, never cancelled", async () => {
    const server = await startServer({ env: { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "300" } });
    try {
      const key = await server.createRoomyKey({ name: "mcp-deadline" });
      const mcp = await connectMcp("http", server, key.secret);
      const own = call(mcp, "util_wait", { ms: 30_000 });
      const id = await startLongRun(mcp);
      const polled = callReceived(mcp, "get_execution", { id, wait_ms: 50_000 });
      await polled.received;
      await untilRunning(server, key, 2);
      server.child.kill("SIGTERM");
      for (const result of [await own, await polled.answer]) {
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/^execution_interrupted: /);
        expect(result._meta?.["skillport/error"]).toMatchObject({ code: "execution_interrupted" });
      }
      expect(await server.exited).toBe(0);
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  it("ends a wait for another process's execution with its record as it stands, once this one's have ended", async () => {
    const server = await startServer();
    try {
      const key = await server.createRoomyKey({ name: "mcp-foreign" });
      // `skillport mcp` on the same store runs it: this server's shutdown does not end it.
      const stdio = await connectMcp("stdio", server, key.secret, { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "300" });
      const mcp = await connectMcp("http", server, key.secret);
      const id = await startLongRun(stdio);
      const polled = callReceived(mcp, "get_execution", { id, wait_ms: 50_000 });
      await polled.received;
      const signalledAt = Date.now();
      server.child.kill("SIGTERM");
      const result = await polled.answer;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id, status: "running" });
      expect(await exitCodeWithin(server, 9_000 - (Date.now() - signalledAt))).toBe(0);
      await mcp.close();
      await stdio.close();
    } finally {
      await server.stop();
    }
  });
});

// A request admitted just before SIGTERM whose handler runs once the sessions are closed
// (its body still arriving) is refused as shutting down, as REST is: told instead that its
// session expired, a client would start a new one on a server going away.
describe("/mcp request admitted just before SIGTERM", { timeout: 60_000 }, () => {
  it("is answered 503 service_unavailable with Retry-After, not 404 session expired", async () => {
    const server = await startServer();
    try {
      const key = await server.createRoomyKey({ name: "mcp-late" });
      const initialize = await fetch(`${server.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        }),
      });
      const session = initialize.headers.get("mcp-session-id") ?? "";
      await initialize.text();
      expect(session).not.toBe("");

      const body = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
      const { socket, host, answer } = await openRawConnection(server);
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key.secret}\r\n` +
          "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
          `Mcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-11-25\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
      );
      // Admitted (past the server's gate) before the signal; its handler waits for the body.
      await sleep(300);
      server.child.kill("SIGTERM");
      await eventually(async () => (server.logs().includes("closed the MCP sessions") ? true : undefined));
      socket.end(body.slice(10));
      const response = await answer;
      expect(response.status, response.head).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(bodyOf<{ error: { code: string } }>(response).error.code).toBe("service_unavailable");
      expect(await server.exited).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
