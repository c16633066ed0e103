import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { silentLogger } from "../../src/core/logger.js";
import type { SkillportBackend } from "../../src/mcp/backend.js";
import { createMcpServer, type McpServerOptions } from "../../src/mcp/mcp-server.js";

/**
 * An SDK `Client` connected in process (the SDK's linked in-memory transports) to the MCP
 * server `createMcpServer` makes on `backend`: `options` over a test's defaults of 40
 * tools, no tag filter, version "test" and nothing logged. The caller closes it.
 */
export async function inMemoryMcpClient(
  backend: SkillportBackend,
  options: Partial<McpServerOptions> = {},
): Promise<Client> {
  const { server } = createMcpServer(backend, {
    maxTools: 40,
    tags: [],
    version: "test",
    logger: silentLogger,
    ...options,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "unit", version: "1" });
  await client.connect(clientSide);
  return client;
}
