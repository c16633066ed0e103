import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Skillport } from "../../src/client/index.js";
import { runningRecord } from "../support/running-record.js";
import {
  client,
  connect,
  type FakeApi,
  fakeApi,
  INVALID_KEY,
  NO_EXECUTIONS,
  RATE_LIMITED,
  skillsNamed,
} from "./fake-rest-api.js";
import { inMemoryMcpClient } from "./in-memory-client.js";

const RUNNING = runningRecord("message.send");

/** RUNNING as a later server might end it, with an error code this version does not know. */
function endedWithNewCode() {
  const failed = {
    ...RUNNING,
    status: "failed",
    success: false,
    error: { code: "execution_rejected", message: "The skill refused the run." },
    latency_ms: 5,
    finished_at: new Date().toISOString(),
  };
  return { failed, ended: /^execution_failed: execution_rejected: The skill refused the run\.\n/ };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
/** A response begun as an event stream, for the events to be written to it. */
const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const statusEvent = (record: unknown) => `event: status\ndata: ${JSON.stringify(record)}\n\n`;

/**
 * A client of a hand-written REST API (`handle` answers each request as it likes, late or
 * streaming), for `use`; the server and client are closed after it, whatever it did.
 */
async function withApi(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  use: (remote: Skillport, baseUrl: string) => Promise<void>,
): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    handle(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const remote = client(baseUrl);
  try {
    await use(remote, baseUrl);
  } finally {
    await remote.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("the remote backend", () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    // A test on the fake clock ends on the real one, whatever failed.
    vi.useRealTimers();
    await api?.close();
  });

  it("answers a started execution it cannot follow with its running record, never with the refusal", async () => {
    // The execute's stream names the execution and ends early (the server shut down);
    // following it on its own events is refused for the key's limit.
    const requests: string[] = [];
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      requests.push(`${req.method} ${req.url}`);
      if (req.url?.startsWith("/v1/executions?")) json(res, ...NO_EXECUTIONS);
      else if (req.url === "/v1/execute") sse(res).end(statusEvent(RUNNING));
      else json(res, ...RATE_LIMITED);
    };
    await withApi(handle, async (remote, baseUrl) => {
      const backend = await connect(remote, baseUrl);
      const record = await backend.execute({
        request: { skill_id: "message.send", params: { channel: "c", text: "hi" }, timeout_ms: 30_000 },
        signal: new AbortController().signal,
      });
      expect(record).toMatchObject({ id: RUNNING.id, status: "running" });
      expect(requests).toEqual([
        "GET /v1/executions?limit=1",
        "POST /v1/execute",
        `GET /v1/executions/${RUNNING.id}/events`,
      ]);
    });
  });

  it("cancels an execution whose call was cancelled while the start was under way", async () => {
    // The server begins the execute's stream 300 ms late; the call is cancelled meanwhile.
    const requests: string[] = [];
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      requests.push(`${req.method} ${req.url}`);
      if (req.url?.startsWith("/v1/executions?")) json(res, ...NO_EXECUTIONS);
      else if (req.url === "/v1/execute") setTimeout(() => sse(res).write(statusEvent(RUNNING)), 300);
      else if (req.url === `/v1/executions/${RUNNING.id}/cancel`)
        json(res, 200, { ...RUNNING, status: "cancelled" });
      else json(res, 404, { error: { code: "not_found", message: "no", request_id: "r" } });
    };
    await withApi(handle, async (remote, baseUrl) => {
      const backend = await connect(remote, baseUrl);
      const cancel = new AbortController();
      const call = backend.execute({
        request: { skill_id: "util.wait", params: { ms: 2000 }, timeout_ms: 30_000 },
        signal: cancel.signal,
      });
      setTimeout(() => cancel.abort("cancelled"), 50);
      expect(await call).toMatchObject({ id: RUNNING.id, status: "cancelled" });
      expect(requests).toEqual([
        "GET /v1/executions?limit=1",
        "POST /v1/execute",
        `POST /v1/executions/${RUNNING.id}/cancel`,
      ]);
    });
  });

  it("waits for the end of a run that lasts past its timeout, when the call waits for the end", async () => {
    // A server whose run is answered 5.5 s later, although its timeout is 100 ms (it queued).
    const completed = { ...RUNNING, status: "completed", success: true, result: { sent: true } };
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith("/v1/executions?")) json(res, ...NO_EXECUTIONS);
      else {
        sse(res).write(statusEvent(RUNNING));
        setTimeout(() => res.end(statusEvent(completed)), 5_500);
      }
    };
    await withApi(handle, async (remote, baseUrl) => {
      const backend = await connect(remote, baseUrl);
      const record = await backend.execute({
        request: { skill_id: "message.send", params: { channel: "c", text: "hi" }, timeout_ms: 100 },
        signal: new AbortController().signal,
      });
      expect(record).toMatchObject({ status: "completed", result: { sent: true } });
    });
  }, 20_000);

  it("starts with a key over its rate limit, and learns its scope once the limit allows", async () => {
    api = await fakeApi((_, index) => (index <= 1 ? RATE_LIMITED : NO_EXECUTIONS));
    const backend = await connect(client(api.baseUrl), api.baseUrl);
    // Not known yet: listed as what every key may call (see RemoteBackend).
    expect(await backend.scope()).toBe("read-only");
    expect(await backend.scope()).toBe("full-access");
    expect(await backend.scope()).toBe("full-access");
    expect(api.requests).toEqual([
      "GET /v1/executions?limit=1",
      "GET /v1/executions?limit=1",
      "GET /v1/executions?limit=1",
    ]);
  });

  it("asks for the key's scope again after a minute, so a revoked key lists no tools", async () => {
    let revoked = false;
    api = await fakeApi(() => (revoked ? INVALID_KEY : NO_EXECUTIONS));
    vi.useFakeTimers({ toFake: ["Date"] });
    const backend = await connect(client(api.baseUrl), api.baseUrl);
    revoked = true;
    expect(await backend.scope()).toBe("full-access"); // within the minute: as asked
    vi.setSystemTime(Date.now() + 61_000);
    await expect(backend.scope()).rejects.toMatchObject({ code: "invalid_api_key" });
    expect(api.requests).toEqual(["GET /v1/executions?limit=1", "GET /v1/executions?limit=1"]);
  });

  it("keeps the scope it knows when asking again meets the key's rate limit", async () => {
    let limited = false;
    api = await fakeApi(() => (limited ? RATE_LIMITED : NO_EXECUTIONS));
    vi.useFakeTimers({ toFake: ["Date"] });
    const backend = await connect(client(api.baseUrl), api.baseUrl);
    limited = true;
    vi.setSystemTime(Date.now() + 61_000);
    expect(await backend.scope()).toBe("full-access");
    expect(api.requests).toHaveLength(2);
  });

  it("keeps the catalog it knows when fetching it again meets the key's rate limit, and fetches it once the limit allows", async () => {
    let limited = false;
    let catalog = "math.evaluate";
    api = await fakeApi((request) => {
      if (limited) return RATE_LIMITED;
      return request.startsWith("GET /v1/skills?") ? skillsNamed(catalog) : NO_EXECUTIONS;
    });
    vi.useFakeTimers({ toFake: ["Date"] });
    const backend = await connect(client(api.baseUrl), api.baseUrl);
    expect((await backend.skills("list")).map((skill) => skill.skill_id)).toEqual(["math.evaluate"]);
    limited = true;
    catalog = "util.wait";
    vi.setSystemTime(Date.now() + 61_000);
    expect((await backend.skills("list")).map((skill) => skill.skill_id)).toEqual(["math.evaluate"]);
    // A call resolves against it too: it is no stand-in.
    expect((await backend.skills("call")).map((skill) => skill.skill_id)).toEqual(["math.evaluate"]);
    expect(await backend.scope()).toBe("full-access");
    limited = false;
    vi.setSystemTime(Date.now() + 61_000);
    expect((await backend.skills("list")).map((skill) => skill.skill_id)).toEqual(["util.wait"]);
  });

  it("starts with no catalog listed and a read-only scope for a key over its rate limit, refuses a call for the limit, and tells when the real ones arrive", async () => {
    let limited = true;
    api = await fakeApi((request) => {
      if (limited) return RATE_LIMITED;
      return request.startsWith("GET /v1/skills?") ? skillsNamed("math.evaluate") : NO_EXECUTIONS;
    });
    const backend = await connect(client(api.baseUrl), api.baseUrl);
    let told = 0;
    backend.onSkillsChanged(() => told++);
    expect(await backend.skills("list")).toEqual([]);
    expect(await backend.scope()).toBe("read-only");
    // A call cannot be resolved against a catalog not known yet: it hears the refusal.
    await expect(backend.skills("call")).rejects.toMatchObject({
      code: "rate_limit_exceeded",
      retryAfterSeconds: 7200,
    });
    expect(told).toBe(0);
    // Nothing was learned: each call asks again (a refused request does not count).
    expect(api.requests).toHaveLength(4);
    limited = false;
    expect((await backend.skills("call")).map((skill) => skill.skill_id)).toEqual(["math.evaluate"]);
    expect((await backend.skills("list")).map((skill) => skill.skill_id)).toEqual(["math.evaluate"]);
    expect(await backend.scope()).toBe("full-access");
    expect(told).toBe(2);
  });

  /**
   * Tool calls through an SDK client, which checks a result against its tool's outputSchema,
   * of `skillport mcp --remote` on `remote`; the client is closed after `use`.
   */
  async function withMcpTools(
    remote: Skillport,
    baseUrl: string,
    use: (call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>) => Promise<void>,
  ): Promise<void> {
    const backend = await connect(remote, baseUrl);
    const mcp = await inMemoryMcpClient(backend);
    try {
      await mcp.listTools(); // the client learns the tools' output schemas
      await use(async (name, args) => (await mcp.callTool({ name, arguments: args })) as CallToolResult);
    } finally {
      await mcp.close();
    }
  }
  const discoverFrom = (answer: unknown) =>
    fakeApi((request) => {
      if (request === "POST /v1/discover") return [200, answer];
      return request.startsWith("GET /v1/skills") ? [200, { data: [], next_cursor: null }] : NO_EXECUTIONS;
    });
  const DISCOVERED = {
    query: "hash",
    results: [
      {
        skill_id: "text.hash",
        name: "Hash text",
        description: "Hashes text.",
        tags: ["text"],
        params: { type: "object", properties: { text: { type: "string" } } },
        score: 0.9,
        match: { lexical: 0.9, fields: { id: ["hash"] } },
      },
    ],
    took_ms: 1.5,
    ranking: { mode: "lexical", semantic: "off" },
  };

  it("answers discover_skills with a later server's discover less the fields its outputSchema lacks, which clients accept", async () => {
    const [result] = DISCOVERED.results;
    api = await discoverFrom({
      ...DISCOVERED,
      results: [{ ...result, rank_reason: "new", match: { ...result?.match, freshness: 1 } }],
      next_query: "a field added later",
    });
    await withMcpTools(client(api.baseUrl), api.baseUrl, async (call) => {
      const answer = await call("discover_skills", { query: "hash" });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(DISCOVERED);
    });
  });

  it("answers a discover it cannot read as service_unavailable, not as a result clients refuse", async () => {
    const { ranking: _, ...withoutRanking } = DISCOVERED;
    api = await discoverFrom(withoutRanking);
    await withMcpTools(client(api.baseUrl), api.baseUrl, async (call) => {
      const answer = await call("discover_skills", { query: "hash" });
      expect(answer.isError).toBe(true);
      expect(answer.content).toEqual([
        expect.objectContaining({ text: expect.stringMatching(/^service_unavailable: .*\(ranking: /) }),
      ]);
    });
  });

  it("answers get_execution with a later server's record less the fields its outputSchema lacks, which clients accept", async () => {
    const record = {
      id: "exec_1",
      skill_id: "text.hash",
      status: "completed",
      success: true,
      error: null,
      latency_ms: 3,
      result: { digest: "ab" },
      created_at: "2026-11-27T12:00:00.000Z",
      started_at: "2026-11-27T12:00:00.001Z",
      finished_at: "2026-11-27T12:00:00.004Z",
    };
    api = await fakeApi((request) => {
      if (request.startsWith("GET /v1/executions/exec_1")) return [200, { ...record, cost_usd: 0.01 }];
      return request.startsWith("GET /v1/skills") ? [200, { data: [], next_cursor: null }] : NO_EXECUTIONS;
    });
    await withMcpTools(client(api.baseUrl), api.baseUrl, async (call) => {
      const answer = await call("get_execution", { id: "exec_1" });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(record);
    });
  });

  it("answers discover_skills with a later server's discover whose match names a field this version does not know, less that field", async () => {
    const [result] = DISCOVERED.results;
    api = await discoverFrom({
      ...DISCOVERED,
      results: [{ ...result, match: { ...result?.match, fields: { id: ["hash"], summary: ["hash"] } } }],
    });
    await withMcpTools(client(api.baseUrl), api.baseUrl, async (call) => {
      const answer = await call("discover_skills", { query: "hash" });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(DISCOVERED);
    });
  });

  it("answers a run a later server ended with an error code this version does not know as ended, with that code, on execute_skill and get_execution", async () => {
    const { ended, failed } = endedWithNewCode();
    await withApi(
      (req, res) => {
        if (req.url?.startsWith("/v1/skills")) json(res, 200, { data: [], next_cursor: null });
        else if (req.url?.startsWith("/v1/executions?")) json(res, ...NO_EXECUTIONS);
        else if (req.url === "/v1/execute") sse(res).write(statusEvent(RUNNING));
        else json(res, 200, failed);
        if (req.url === "/v1/execute") setTimeout(() => res.end(statusEvent(failed)), 50);
      },
      (remote, baseUrl) =>
        withMcpTools(remote, baseUrl, async (call) => {
          const executed = await call("execute_skill", {
            skill_id: "message.send",
            params: { channel: "c", text: "hi" },
          });
          expect(executed.isError).toBe(true);
          expect(executed.content).toEqual([expect.objectContaining({ text: expect.stringMatching(ended) })]);
          const read = await call("get_execution", { id: RUNNING.id });
          expect(read.isError).toBe(true);
          expect(read.content).toEqual([expect.objectContaining({ text: expect.stringMatching(ended) })]);
        }),
    );
  });

  it("refuses to start with a key the server refuses", async () => {
    api = await fakeApi(() => INVALID_KEY);
    await expect(connect(client(api.baseUrl), api.baseUrl)).rejects.toMatchObject({
      code: "invalid_api_key",
    });
  });
});
