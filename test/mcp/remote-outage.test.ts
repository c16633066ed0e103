import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { capturingLogger } from "../support/capturing-logger.js";
import {
  client,
  connect,
  type FakeApi,
  fakeApi,
  INVALID_KEY,
  NO_EXECUTIONS,
  RATE_LIMITED,
  type Reply,
} from "./fake-rest-api.js";
import { inMemoryMcpClient } from "./in-memory-client.js";

/** A skill as `GET /v1/skills` lists it, enough for its own tool. */
const skill = (id: string) => ({
  skill_id: id,
  name: id,
  description: `The skill ${id}.`,
  tags: ["test"],
  params: { type: "object", properties: { text: { type: "string" } } },
  result: { type: "object" },
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  examples: [],
});
const catalogOf = (...ids: string[]): Reply => [200, { data: ids.map(skill), next_cursor: null }];
const serverError = (status: number, code: string, message: string): Reply => [
  status,
  { error: { code, message, request_id: "r" } },
];
const UNAVAILABLE = serverError(503, "service_unavailable", "The service is shutting down.");
const INTERNAL = serverError(500, "internal_error", "Internal error.");

const MINUTE_AND_A_BIT_MS = 61_000;

/** What the fake server answers: `now` to every request while set, else `skills` to a full-access key. */
interface ServerState {
  now?: Reply | "no answer";
  skills: string[];
}

// README, "Use it from an assistant": `skillport mcp --remote` lists the tools it fetched
// last while its server cannot answer. Regression (session 32): the catalog and the key's
// scope, fetched again after a minute, failed `tools/list` whenever the server was down at
// that moment (restarting, refusing connections, answering 5xx), so an assistant lost every
// tool while its server restarted.
describe("skillport mcp --remote while its server is unavailable", () => {
  let api: FakeApi | undefined;
  let mcp: Client | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await mcp?.close();
    await api?.close();
    mcp = undefined;
    api = undefined;
  });

  /** The fake server, as `state` says at each request. */
  const start = async (state: ServerState) => {
    api = await fakeApi((request) => {
      if (state.now) return state.now;
      return request.startsWith("GET /v1/skills?") ? catalogOf(...state.skills) : NO_EXECUTIONS;
    });
    return api;
  };
  const listed = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
  const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

  it("keeps listing the tools it fetched last through 5xx answers and refused connections, asks again after a backoff, and logs it once", async () => {
    const state: ServerState = { skills: ["test.one"] };
    const server = await start(state);
    vi.useFakeTimers({ toFake: ["Date"] });
    const lines: Record<string, unknown>[] = [];
    const remote = client(server.baseUrl);
    mcp = await inMemoryMcpClient(await connect(remote, server.baseUrl, capturingLogger(lines)));
    const before = await listed(mcp);
    expect(before).toEqual(expect.arrayContaining(["discover_skills", "execute_skill", "test_one"]));

    state.now = UNAVAILABLE;
    later(MINUTE_AND_A_BIT_MS);
    const asked = server.requests.length;
    expect(await listed(mcp)).toEqual(before);
    expect(server.requests).toHaveLength(asked + 2); // the scope and the catalog, asked again
    // Asked again at once, the server is not: the tools fetched last answer.
    expect(await listed(mcp)).toEqual(before);
    expect(server.requests).toHaveLength(asked + 2);

    later(6_000);
    state.now = INTERNAL;
    expect(await listed(mcp)).toEqual(before);
    expect(server.requests).toHaveLength(asked + 4);

    await server.down();
    later(11_000);
    expect(await listed(mcp)).toEqual(before);

    // Back, with another catalog: listed on the next ask after the backoff.
    await server.up();
    state.now = undefined;
    state.skills = ["test.one", "test.two"];
    later(21_000);
    expect(await listed(mcp)).toEqual([...before, "test_two"]);

    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({
        reason: `The skillport at ${server.baseUrl} is unavailable: The service is shutting down.`,
      }),
    ]);
    expect(lines.filter((line) => line.level === "info")).toEqual([
      expect.objectContaining({ msg: "mcp --remote: the server answers again" }),
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/sk_(live|test)_/);
  });

  it("still lists no tools for a key refused after an outage (revoked meanwhile)", async () => {
    const state: ServerState = { skills: ["test.one"] };
    const server = await start(state);
    vi.useFakeTimers({ toFake: ["Date"] });
    mcp = await inMemoryMcpClient(await connect(client(server.baseUrl), server.baseUrl));
    await listed(mcp);
    state.now = UNAVAILABLE;
    later(MINUTE_AND_A_BIT_MS);
    await listed(mcp);
    state.now = INVALID_KEY;
    later(6_000);
    await expect(mcp.listTools()).rejects.toThrow(/invalid_api_key/);
  });

  it("answers tools/list within seconds with the tools fetched last when the server stops answering", async () => {
    const state: ServerState = { skills: ["test.one"] };
    const server = await start(state);
    vi.useFakeTimers({ toFake: ["Date"] });
    mcp = await inMemoryMcpClient(await connect(client(server.baseUrl), server.baseUrl));
    const before = await listed(mcp);
    state.now = "no answer";
    later(MINUTE_AND_A_BIT_MS);
    const startedMs = performance.now();
    expect(await listed(mcp)).toEqual(before);
    // The client's attempt timeout is a minute, past the MCP client's own request timeout.
    expect(performance.now() - startedMs).toBeLessThan(5_000);
    // The fetch still under way is waited for no more.
    const againMs = performance.now();
    expect(await listed(mcp)).toEqual(before);
    expect(performance.now() - againMs).toBeLessThan(500);
  }, 15_000);

  it("answers the first tools/list within seconds, service_unavailable naming the server, when nothing could be fetched and the server stops answering", async () => {
    // A key over its rate limit at start-up: neither its scope nor the catalog is known.
    // Regression: that tools/list waited the client's attempt timeout (a minute), past the
    // MCP client's own request timeout, where a refused connection is answered at once.
    const state: ServerState = { now: RATE_LIMITED, skills: ["test.one"] };
    const server = await start(state);
    mcp = await inMemoryMcpClient(await connect(client(server.baseUrl), server.baseUrl));
    state.now = "no answer";
    const unanswered = `service_unavailable: The skillport at ${server.baseUrl} is unavailable: It has not answered within 2 s.`;
    await expect(mcp.listTools()).rejects.toThrow(unanswered);
    // Asked again while those requests still hang: the same answer, and no new request.
    const asked = server.requests.length;
    await expect(mcp.listTools()).rejects.toThrow(unanswered);
    expect(server.requests).toHaveLength(asked);
  }, 15_000);

  it("says which server is unavailable, without a stack, when tools/list needs what it never could fetch", async () => {
    // A key over its rate limit at start-up: neither its scope nor the catalog is known.
    const state: ServerState = { now: RATE_LIMITED, skills: ["test.one"] };
    const server = await start(state);
    const lines: Record<string, unknown>[] = [];
    const backend = await connect(client(server.baseUrl), server.baseUrl);
    mcp = await inMemoryMcpClient(backend, { logger: capturingLogger(lines) });
    state.now = INTERNAL;
    await expect(mcp.listTools()).rejects.toThrow(
      `service_unavailable: The skillport at ${server.baseUrl} is unavailable: Internal error.`,
    );
    await server.down();
    await expect(mcp.listTools()).rejects.toThrow(
      new RegExp(`service_unavailable: The skillport at ${server.baseUrl} is unavailable: The connection to`),
    );
    // A server's failure is no bug of this process: nothing logged with a stack.
    expect(lines).toEqual([]);
  });
});
