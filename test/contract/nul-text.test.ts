import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, scaleOutServices, skipWithoutServices } from "../support/scale-out-services.js";
import {
  type ApiResponse,
  apiRequest,
  bodyOf,
  type CreatedKey,
  dashboardSession,
  expectError,
  startServer,
  type TestServer,
} from "./harness.js";

const services = scaleOutServices();
const ADMIN_TOKEN = "nul-text-admin-token-0123456789";

interface Deployment {
  server: TestServer;
  key: CreatedKey;
  dashboardCookie: string;
}

/** One MCP `tools/call` over a fresh session; the tool's result. */
async function mcpToolCall(
  { server, key }: Deployment,
  name: string,
  args: unknown,
): Promise<{ isError?: boolean; structuredContent?: unknown; content?: { text?: string }[] }> {
  const headers = {
    authorization: `Bearer ${key.secret}`,
    accept: "application/json, text/event-stream",
  };
  const post = (json: unknown, extra: Record<string, string> = {}) =>
    apiRequest(server.baseUrl, "POST", "/mcp", { json, headers: { ...headers, ...extra } });
  const init = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "nul-test", version: "1" },
    },
  });
  expect(init.status, init.text).toBe(200);
  const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
  const res = await post(
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } },
    session,
  );
  expect(res.status, res.text).toBe(200);
  const message = rpcMessage(res);
  expect(message.error, res.text).toBeUndefined();
  return message.result as { isError?: boolean };
}

/** The JSON-RPC message of an answer sent as JSON or as one SSE event. */
function rpcMessage(res: ApiResponse): { result?: unknown; error?: unknown } {
  if (res.body && typeof res.body === "object") return res.body as { result?: unknown };
  const data = /^data: (.*)$/m.exec(res.text)?.[1] ?? "{}";
  return JSON.parse(data) as { result?: unknown };
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/**
 * Audit 21 #3: U+0000 in an id, a filter, a cursor or a skill's text answered 500 (or
 * failed the run) on PostgreSQL, whose `text` cannot hold it, while SQLite answered. Both
 * stores now give the same answer (src/store/nul-rule.ts): an id or a filter with NUL
 * matches nothing, and a message's text with NUL is refused as invalid params.
 */
describe("contract: U+0000 in what a client sends gets the same answer on both stores", {
  timeout: 120_000,
}, () => {
  if (!services) {
    skipWithoutServices("the U+0000 contract test");
    return;
  }
  const deployments: Record<"sqlite" | "postgresql", Deployment> = {} as never;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (!services) return;
    const database = await createTestDatabase(services);
    dropDatabase = database.drop;
    const envs = {
      sqlite: { SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN },
      postgresql: {
        SKILLPORT_ADMIN_TOKEN: ADMIN_TOKEN,
        SKILLPORT_DATABASE_URL: database.databaseUrl,
        SKILLPORT_REDIS_URL: services.redisUrl,
        SKILLPORT_REDIS_KEY_PREFIX: `nul-${Date.now()}:`,
      },
    };
    for (const store of ["sqlite", "postgresql"] as const) {
      const server = await startServer({ env: envs[store] });
      const key = await server.createRoomyKey({ name: `nul-${store}` });
      deployments[store] = {
        server,
        key,
        dashboardCookie: await dashboardSession(server.baseUrl, ADMIN_TOKEN),
      };
    }
  });
  afterAll(async () => {
    for (const { server } of Object.values(deployments)) await server.stop();
    await dropDatabase?.();
  });

  for (const store of ["sqlite", "postgresql"] as const) {
    describe(store, () => {
      const get = (path: string) => {
        const { server, key } = deployments[store];
        return server.request("GET", path, { key: key.secret });
      };
      const execute = (skillId: string, params: unknown) => {
        const { server, key } = deployments[store];
        return server.request("POST", "/v1/execute", {
          key: key.secret,
          json: { skill_id: skillId, params },
        });
      };

      it("answers an execution id with NUL 404 execution_not_found (read and cancel)", async () => {
        expectError(await get("/v1/executions/exec_%00abc"), 404, "execution_not_found");
        const { server, key } = deployments[store];
        const cancel = await server.request("POST", "/v1/executions/exec_%00abc/cancel", { key: key.secret });
        expectError(cancel, 404, "execution_not_found");
      });

      it("lists nothing for a filter or a cursor with NUL", async () => {
        const filtered = await get("/v1/executions?skill_id=a%00b");
        expect(filtered.status, filtered.text).toBe(200);
        expect(bodyOf<{ data: unknown[] }>(filtered).data).toEqual([]);
        const cursor = base64url({ id: "exec_\u0000", of: "executions" });
        const paged = await get(`/v1/executions?cursor=${cursor}`);
        expect(paged.status, paged.text).not.toBe(500);
        if (paged.status === 200) expect(bodyOf<{ data: unknown[] }>(paged).data).toEqual([]);
      });

      it("answers MCP get_execution for an id with NUL as an unknown execution", async () => {
        const result = await mcpToolCall(deployments[store], "get_execution", { id: "exec_\u0000x" });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result)).toContain("execution_not_found");
      });

      it("refuses message.send with NUL in its text as invalid params; a NUL cursor names no message, a NUL prefix no entry", async () => {
        const sent = await execute("message.send", { channel: "gen", text: "a\u0000b" });
        expectError(sent, 422, "invalid_params");
        expect(sent.text).toContain("U+0000");
        // An unknown `before` fails the execution (audit 22, skills F17), as any id no message has.
        const listed = await execute("message.list", { before: "msg_\u0000" });
        expect(listed.status, listed.text).toBe(200);
        expect(bodyOf<{ status: string; error: { code: string; message: string } }>(listed)).toMatchObject({
          status: "failed",
          error: {
            code: "execution_failed",
            message: expect.stringMatching(/^No message with id "msg_\\u0000"/),
          },
        });
        const prefixed = await execute("memory.list", { prefix: "a\u0000" });
        expect(prefixed.status, prefixed.text).toBe(200);
        expect(bodyOf<{ status: string }>(prefixed).status).toBe("completed");
      });

      it("answers the dashboard's pages for ids and filters with NUL without a 500", async () => {
        const { server, dashboardCookie } = deployments[store];
        for (const path of [
          "/dashboard/executions?skill_id=a%00b",
          "/dashboard/executions?owner=a%00",
          "/dashboard/executions?key_id=key_%00",
          "/dashboard/executions/exec_%00x",
          "/dashboard/keys/key_%00x",
        ]) {
          const res = await apiRequest(server.baseUrl, "GET", path, { headers: { cookie: dashboardCookie } });
          expect([200, 400, 404], `${path}: ${res.status}`).toContain(res.status);
        }
      });
    });
  }

  it("gives the same statuses on both stores", async () => {
    const statuses = async (store: "sqlite" | "postgresql") => {
      const { server, key, dashboardCookie } = deployments[store];
      const answers: number[] = [];
      for (const path of ["/v1/executions/exec_%00abc", "/v1/executions?skill_id=a%00b"]) {
        answers.push((await server.request("GET", path, { key: key.secret })).status);
      }
      for (const path of [
        "/dashboard/executions?owner=a%00",
        "/dashboard/executions/exec_%00x",
        "/dashboard/keys/key_%00x",
      ]) {
        answers.push(
          (await apiRequest(server.baseUrl, "GET", path, { headers: { cookie: dashboardCookie } })).status,
        );
      }
      return answers;
    };
    expect(await statuses("postgresql")).toEqual(await statuses("sqlite"));
  });
});
