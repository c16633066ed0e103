import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI_PATH, type TestServer } from "../contract/harness.js";

/**
 * How a test reaches skillport over MCP, with a real SDK client: `skillport mcp` over
 * stdio (embedded), `/mcp` over HTTP, or `skillport mcp --remote` bridging stdio to the
 * server's REST API.
 */
export type McpTransportKind = "stdio" | "http" | "remote";

export interface ConnectedClient {
  client: Client;
  close(): Promise<void>;
  /** What the stdio process wrote to stderr (its logs); empty over HTTP. */
  stderr(): string;
}

/**
 * A real SDK `Client` for `secret`: over stdio it spawns the built `skillport mcp` on the
 * server's data dir (the same store, as an assistant's process would share it); over
 * HTTP it talks to the server's `/mcp`.
 */
export async function connectMcp(
  kind: McpTransportKind,
  server: TestServer,
  secret: string,
  env: Record<string, string> = {},
): Promise<ConnectedClient> {
  const client = new Client({ name: "skillport-tests", version: "1.0.0" });
  if (kind === "http") {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    });
    await client.connect(transport);
    return {
      client,
      close: async () => {
        await transport.terminateSession().catch(() => {});
        await client.close();
      },
      stderr: () => "",
    };
  }
  const transport = stdioTransport(
    kind === "remote" ? ["--remote", server.baseUrl] : ["--data-dir", server.dataDir],
    { SKILLPORT_API_KEY: secret, ...env },
  );
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

/** `skillport mcp ARGS`, spawned by the SDK's own stdio transport. */
export function stdioTransport(args: string[], env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, "mcp", ...args],
    env: { ...(process.env as Record<string, string>), SKILLPORT_LOG_LEVEL: "info", ...env },
    stderr: "pipe",
  });
}

export interface ProcessOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node ARGS` to its end: writes `stdin` lines (objects as JSON, strings as they are)
 * and closes stdin after `closeStdinAfterMs` (never, when 0; right after the lines, "at
 * once", as a one-shot pipe does), and collects what it wrote.
 */
export function runNode(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    stdin?: (object | string)[];
    closeStdinAfterMs?: number | "at once";
  },
): Promise<ProcessOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    for (const line of options.stdin ?? []) {
      child.stdin.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
    }
    if (options.closeStdinAfterMs === "at once") child.stdin.end();
    else if (options.closeStdinAfterMs) setTimeout(() => child.stdin.end(), options.closeStdinAfterMs);
  });
}
