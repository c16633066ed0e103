import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { bodyOf, type ExecutionRecord, serverForSuite } from "../contract/harness.js";

/**
 * A fetch that cuts the response stream of the first `tools/call` it carries after
 * `afterMs`, as a proxy timing out or a network blip would; everything else passes.
 */
function fetchCuttingFirstCall(afterMs: number): typeof fetch {
  let cut = false;
  return async (input, init) => {
    const res = await fetch(input, init);
    if (cut || init?.method !== "POST" || !String(init.body).includes('"tools/call"') || !res.body)
      return res;
    cut = true;
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        setTimeout(() => {
          controller.error(new TypeError("terminated"));
          reader.cancel().catch(() => {});
        }, afterMs);
        try {
          for (let read = await reader.read(); !read.done; read = await reader.read())
            controller.enqueue(read.value);
        } catch {
          // Cancelled above.
        }
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

// Regression (audit 22, MCP #3): a call whose response stream was cut lost its answer (the
// run went on and completed), the SDK client waited for its timeout, and an agent calling
// again ran the skill twice. MCP 2025-11-25, "Resumability": the client resumes with
// Last-Event-ID and gets what it missed.
describe("/mcp resumes a cut response stream", () => {
  const server = serverForSuite();

  it("answers a call whose stream was cut mid-run, after the client resumes it, and runs the skill once", async () => {
    const key = await server().createRoomyKey();
    const client = new Client({ name: "resuming", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server().baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key.secret}` } },
      fetch: fetchCuttingFirstCall(300),
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 5,
      },
    });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: "util_wait", arguments: { ms: 1_500 } }, undefined, {
        timeout: 15_000,
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ waited_ms: 1_500 });
      const runs = bodyOf<{ data: ExecutionRecord[] }>(
        await server().request("GET", "/v1/executions?skill_id=util.wait", { key: key.secret }),
      ).data;
      expect(runs.map((run) => run.status)).toEqual(["completed"]);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });
});
