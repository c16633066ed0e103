// The bare MCP server of `bench/mcp.mjs`: the SDK's own server over stdio whose only tool
// does what skillport's `math.evaluate` does (mathjs evaluates the expression), with no
// auth, limits or records. What skillport is measured against.
// With `BENCH_MCP_FLOOR=1` it is the MCP floor instead: each call goes through the floor's
// durable execute (floor-execute.mjs) with the key this server holds, as `skillport mcp`
// holds `SKILLPORT_API_KEY`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { evaluate } from "mathjs";

const floor =
  process.env.BENCH_MCP_FLOOR === "1" ? (await import("./floor-execute.mjs")).openFloor() : undefined;

/** The tool's result: straight from mathjs, or through the floor. */
async function mathEvaluate(args) {
  if (floor)
    return (await floor.execute(floor.secret, { skill_id: "math.evaluate", params: args })).record.result;
  const value = evaluate(String(args?.expression));
  return { value, type: typeof value, text: String(value) };
}

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
  const result = await mathEvaluate(request.params.arguments);
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
});
server.onclose = () => floor?.close();
await server.connect(new StdioServerTransport());
