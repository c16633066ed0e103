import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Skillport } from "../../src/client/index.js";
import { generateSecret } from "../../src/core/keys/secret.js";
import { RemoteBackend } from "../../src/mcp/remote-backend.js";

const RUNNING = {
  id: "exec_0VbwQzvZ000eZAv4aMMqKeU12",
  skill_id: "message.send",
  status: "running",
  success: null,
  error: null,
  latency_ms: null,
  result: null,
  created_at: "2026-11-25T00:00:00.000Z",
  started_at: "2026-11-25T00:00:00.000Z",
  finished_at: null,
};

/** A REST API that starts executions but refuses to let them be followed (the key's limit is spent). */
async function refusingToFollow(): Promise<{ baseUrl: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const answer = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on("end", () => {
      requests.push(`${req.method} ${req.url}`);
      if (req.method === "GET" && req.url?.startsWith("/v1/executions?")) {
        return answer(res, 200, { data: [], next_cursor: null });
      }
      if (req.method === "POST" && req.url === "/v1/execute") return answer(res, 202, RUNNING);
      // A day's limit: longer than the client waits for, so it gives up at once.
      answer(
        res,
        429,
        {
          error: {
            code: "rate_limit_exceeded",
            message: "Rate limit exceeded.",
            retry_after: 7200,
            request_id: "r",
          },
        },
        { "retry-after": "7200" },
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("the remote backend", () => {
  let api: Awaited<ReturnType<typeof refusingToFollow>> | undefined;
  afterEach(() => api?.close());

  it("answers a started execution it cannot follow with its running record, never with the refusal", async () => {
    api = await refusingToFollow();
    const client = new Skillport({ apiKey: generateSecret("production"), baseUrl: api.baseUrl });
    const backend = await RemoteBackend.connect(client);
    const record = await backend.execute({
      request: { skill_id: "message.send", params: { channel: "c", text: "hi" }, timeout_ms: 30_000 },
      signal: new AbortController().signal,
    });
    expect(record).toMatchObject({ id: RUNNING.id, status: "running" });
    expect(api.requests).toEqual([
      "GET /v1/executions?limit=1",
      "POST /v1/execute",
      `GET /v1/executions/${RUNNING.id}/events`,
    ]);
  });
});
