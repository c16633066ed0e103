// The bare MCP server of `bench/mcp.mjs`: the SDK's own server over stdio whose only tool
// does what skillport's `math.evaluate` does (mathjs evaluates the expression), with no
// auth, limits or records. What skillport is measured against.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { evaluate } from "mathjs";

const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "math_evaluate",
      inputSchema: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const value = evaluate(String(request.params.arguments?.expression));
  const result = { value, type: typeof value, text: String(value) };
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
});
await server.connect(new StdioServerTransport());
