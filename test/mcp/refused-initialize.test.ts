import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logging.js";
import { makeCore } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { testHttpServerOptions } from "../http/http-server-options.js";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("/mcp initialize refused by the transport", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // Regression: each refused initialize left an MCP server subscribed to the skill registry
  // for the life of the process, and any key could exhaust the heap with them.
  it("leaves no MCP server behind; an accepted one stays until its session closes", async () => {
    const core = await makeCore([echo]);
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey({ scope: "read-only" });
    let subscribed = 0;
    const onChange = core.skillport.registry.onChange.bind(core.skillport.registry);
    vi.spyOn(core.skillport.registry, "onChange").mockImplementation((listener) => {
      subscribed++;
      const unsubscribe = onChange(listener);
      return () => {
        subscribed--;
        return unsubscribe();
      };
    });
    const server = buildHttpServer(core.skillport, testHttpServerOptions(createLogger("silent")));
    cleanups.push(() => server.close());
    server.open();
    await server.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = server.app.server.address() as AddressInfo;
    const post = (accept: string) =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept },
        body: JSON.stringify(initialize),
      });

    for (const accept of ["application/json", "*/*", "text/event-stream"]) {
      for (let i = 0; i < 5; i++) {
        const res = await post(accept);
        expect(res.status).toBe(406);
        await res.text();
      }
    }
    await vi.waitFor(() => expect(subscribed).toBe(0));

    const accepted = await post("application/json, text/event-stream");
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("mcp-session-id")).toBeTruthy();
    await accepted.text();
    expect(subscribed).toBe(1);
  });
});
