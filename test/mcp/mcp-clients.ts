import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI_PATH, type TestServer } from "../contract/harness.js";

/** How a test reaches skillport over MCP: a real SDK client over one of the two transports. */
export type McpTransportKind = "stdio" | "http";

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
  const transport = stdioTransport(server.dataDir, { SKILLPORT_API_KEY: secret, ...env });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

/** `skillport mcp` on `dataDir`, spawned by the SDK's own stdio transport. */
export function stdioTransport(dataDir: string, env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, "mcp", "--data-dir", dataDir],
    env: { ...(process.env as Record<string, string>), SKILLPORT_LOG_LEVEL: "info", ...env },
    stderr: "pipe",
  });
}
