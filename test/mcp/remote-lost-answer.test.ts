import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { Skillport } from "../../src/client/index.js";
import { serverForSuite } from "../contract/harness.js";
import { startTcpProxy, type TcpProxy } from "../contract/tcp-proxy.js";
import { stdioTransport } from "./mcp-clients.js";

/**
 * `skillport mcp --remote` when the answer to the request starting a run is lost (a
 * dropped connection): the skill ran, and the tool call must answer with its run, not
 * with a failure that an assistant would meet by calling again, running it twice.
 */
describe("MCP over the remote bridge: a lost answer", () => {
  const suiteServer = serverForSuite();
  let proxy: TcpProxy | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await proxy?.close();
  });

  it("a run whose start's answer was lost is answered by its record, and ran once", async () => {
    const server = suiteServer();
    const key = await server.createRoomyKey({ owner: "lost-answer" });
    let cut = false;
    // The first POST /v1/execute reaches the server; its answer never reaches the bridge.
    proxy = await startTcpProxy(server.baseUrl, () => ({
      cutAfter: (head) => {
        if (cut || !head.startsWith("POST /v1/execute ")) return false;
        cut = true;
        return true;
      },
    }));
    client = new Client({ name: "skillport-tests", version: "1.0.0" });
    await client.connect(stdioTransport(["--remote", proxy.baseUrl], { SKILLPORT_API_KEY: key.secret }));

    const text = `sent once ${Date.now()}`;
    const result = (await client.callTool({
      name: "message_send",
      arguments: { channel: "lost-answers", text },
    })) as CallToolResult;
    expect(cut).toBe(true);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: "sent", channel: "lost-answers" });

    const rest = new Skillport({ apiKey: key.secret, baseUrl: server.baseUrl });
    try {
      const records = [];
      for await (const page of rest.listExecutions({ skill_id: "message.send" })) records.push(...page.data);
      expect(records.map((record) => record.status)).toEqual(["completed"]);
    } finally {
      await rest.close();
    }
  });
});
