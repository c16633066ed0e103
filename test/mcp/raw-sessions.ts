import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { CLI_PATH, type Json, type TestServer } from "../contract/harness.js";
import type { McpTransportKind } from "./mcp-clients.js";

/**
 * An MCP session that sends JSON-RPC messages as the text a test wrote, byte for byte: the
 * SDK's client serialises with `JSON.stringify`, which cannot send `-0`, `1e400`, a
 * `"\u005f_proto__"` key or a lone surrogate as written. Requests have string ids
 * `raw-N`; the answer is what the server sent for that id, or, over HTTP, the response
 * itself when it is no JSON-RPC answer (a refusal of the request as HTTP).
 */
export interface RawSession {
  /** Sends `{"jsonrpc":"2.0","id":…,"method":METHOD,"params":PARAMS_TEXT}` and waits for its answer. */
  request(method: string, paramsText: string): Promise<RawAnswer>;
  close(): Promise<void>;
}

export type RawAnswer =
  | { kind: "jsonrpc"; message: Json }
  /** An HTTP response to `/mcp` that carries no JSON-RPC answer (its status and body). */
  | { kind: "http"; status: number; body: unknown };

const PROTOCOL_VERSION = "2025-11-25";
const INITIALIZE = `{"protocolVersion":"${PROTOCOL_VERSION}","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`;

let nextId = 0;
const messageText = (id: string, method: string, paramsText: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${paramsText}}`;

/** A raw session of `secret` over `kind`: `skillport mcp` (stdio, remote) spawned, or `/mcp`. */
export async function openRawSession(
  kind: McpTransportKind,
  server: TestServer,
  secret: string,
): Promise<RawSession> {
  const session =
    kind === "http"
      ? await httpSession(server, secret)
      : stdioSession(
          kind === "remote" ? ["--remote", server.baseUrl] : ["--data-dir", server.dataDir],
          secret,
        );
  const opened = await session.request("initialize", INITIALIZE);
  if (opened.kind !== "jsonrpc" || !("result" in opened.message)) {
    throw new Error(`initialize failed: ${JSON.stringify(opened)}`);
  }
  await session.notify("notifications/initialized");
  return session;
}

function stdioSession(
  args: string[],
  secret: string,
): RawSession & { notify(method: string): Promise<void> } {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI_PATH, "mcp", ...args], {
    env: { ...process.env, SKILLPORT_API_KEY: secret, SKILLPORT_LOG_LEVEL: "warn" },
  });
  const waiting = new Map<string, (answer: RawAnswer) => void>();
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const message = JSON.parse(line) as Json;
      const settle = typeof message.id === "string" ? waiting.get(message.id) : undefined;
      if (!settle) continue;
      waiting.delete(message.id as string);
      settle({ kind: "jsonrpc", message });
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    request(method, paramsText) {
      const id = `raw-${++nextId}`;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${messageText(id, method, paramsText)}\n`);
      });
    },
    async notify(method) {
      child.stdin.write(`{"jsonrpc":"2.0","method":${JSON.stringify(method)}}\n`);
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

async function httpSession(
  server: TestServer,
  secret: string,
): Promise<RawSession & { notify(method: string): Promise<void> }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${secret}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const post = (text: string) =>
    fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers,
      body: text,
      signal: AbortSignal.timeout(60_000),
    });
  return {
    async request(method, paramsText) {
      const id = `raw-${++nextId}`;
      const res = await post(messageText(id, method, paramsText));
      const sessionId = res.headers.get("mcp-session-id");
      if (method === "initialize" && sessionId) {
        headers["mcp-session-id"] = sessionId;
        headers["mcp-protocol-version"] = PROTOCOL_VERSION;
      }
      const text = await res.text();
      const messages = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
        ? text
            .split("\n")
            .filter((line) => line.startsWith("data:") && line.slice(5).trim() !== "")
            .map((line) => JSON.parse(line.slice(5)) as Json)
        : [parsedOrText(text)];
      const answer = messages.find((message) => (message as Json | undefined)?.id === id);
      return answer
        ? { kind: "jsonrpc", message: answer as Json }
        : { kind: "http", status: res.status, body: messages[0] };
    },
    async notify(method) {
      await (await post(`{"jsonrpc":"2.0","method":${JSON.stringify(method)}}`)).text();
    },
    async close() {
      await fetch(`${server.baseUrl}/mcp`, { method: "DELETE", headers }).catch(() => {});
    },
  };
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
