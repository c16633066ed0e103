import { afterEach, describe, expect, it } from "vitest";
import { parseToolCall } from "../../src/mcp/tool-calls.js";
import { echo } from "../core/test-skills.js";
import { inProcessApi } from "./in-process-api.js";

type Refusal = { code: string; message: string; details: { path: string; message: string }[] };

// A request member under a name close to one the request takes (`timeout` for `timeout_ms`,
// `Async`, `Limit`, `tag`) was dropped without a word, as zod drops unknown members: the
// execution ran synchronously with the default 30 s timeout, the listing had 20 records, and
// the caller never learnt why. Skill params were told so; the request around them was not.
describe("a request member sent under a close name is refused with the name meant", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp() {
    const { request } = await inProcessApi([echo], cleanups);
    return { request };
  }

  const refusal = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode, res.body).toBe(400);
    return (JSON.parse(res.body) as { error: Refusal }).error;
  };

  it("in a body: execute's timeout or Async, discover's Limit or tag", async () => {
    const { request } = await setUp();
    const run = { skill_id: "test.echo", params: { text: "hi" } };
    const timeout = refusal(await request("POST", "/v1/execute", { ...run, timeout: 500 }));
    expect(timeout).toMatchObject({
      code: "invalid_request",
      message: 'timeout: is not allowed here; did you mean "timeout_ms"?',
      details: [{ path: "timeout", message: 'is not allowed here; did you mean "timeout_ms"?' }],
    });
    const async = refusal(await request("POST", "/v1/execute", { ...run, Async: true }));
    expect(async.message).toBe('Async: is not allowed here; did you mean "async"?');
    const limit = refusal(await request("POST", "/v1/discover", { query: "echo", Limit: 3 }));
    expect(limit.message).toBe('Limit: is not allowed here; did you mean "limit"?');
    const tag = refusal(await request("POST", "/v1/discover", { query: "echo", tag: ["text"] }));
    expect(tag.message).toBe('tag: is not allowed here; did you mean "tags"?');
  });

  it("in a query: the listings' Limit, a long poll's Wait", async () => {
    const { request } = await setUp();
    const list = refusal(await request("GET", "/v1/executions?Limit=1"));
    expect(list).toMatchObject({
      code: "invalid_request",
      message: 'Limit: not a query parameter this path takes; did you mean "limit"?',
      details: [{ path: "Limit", message: 'not a query parameter this path takes; did you mean "limit"?' }],
    });
    expect(refusal(await request("GET", "/v1/skills?limt=1")).message).toMatch(
      /^limt: .*did you mean "limit"\?$/,
    );
    const ran = await request("POST", "/v1/execute", { skill_id: "test.echo", params: { text: "hi" } });
    const { id } = JSON.parse(ran.body) as { id: string };
    expect(refusal(await request("GET", `/v1/executions/${id}?Wait=5`)).message).toMatch(
      /^Wait: .*did you mean "wait"\?$/,
    );
  });

  it("in the query of a POST: a member of its JSON body sent as a query parameter", async () => {
    const { request } = await setUp();
    const run = { skill_id: "test.echo", params: { text: "hi" } };
    const async = refusal(await request("POST", "/v1/execute?async=true", run));
    expect(async).toMatchObject({
      code: "invalid_request",
      message: 'async: a member of the JSON body, not a query parameter: send {"async": ...} in the body',
      details: [
        {
          path: "async",
          message: 'a member of the JSON body, not a query parameter: send {"async": ...} in the body',
        },
      ],
    });
    expect(refusal(await request("POST", "/v1/discover?Limit=3", { query: "echo" })).message).toBe(
      'Limit: a member of the JSON body, not a query parameter: send {"limit": ...} in the body',
    );
    // Nothing else in the query of a POST is read, so nothing else is refused.
    expect((await request("POST", "/v1/discover?source=docs", { query: "echo" })).statusCode).toBe(200);
  });

  // An idempotency key sent as a body member or tool argument was dropped: the caller's
  // retry, believed safe, ran the skill a second time.
  it("an idempotency key sent as a member, pointed to where it goes on each surface", async () => {
    const { request } = await setUp();
    const run = { skill_id: "test.echo", params: { text: "hi" } };
    for (const name of ["idempotency_key", "idempotencyKey", "Idempotency-Key"]) {
      const refused = refusal(await request("POST", "/v1/execute", { ...run, [name]: "order-42" }));
      expect(refused).toMatchObject({
        code: "invalid_request",
        message: `${name}: is not allowed here; send an idempotency key in the Idempotency-Key header`,
        details: [
          {
            path: name,
            message: "is not allowed here; send an idempotency key in the Idempotency-Key header",
          },
        ],
      });
    }
    expect(() =>
      parseToolCall(
        { kind: "generic", name: "execute_skill" },
        { name: "execute_skill", arguments: { ...run, idempotency_key: "order-42" } },
      ),
    ).toThrow(
      `idempotency_key: is not allowed here; send an idempotency key in the call's _meta, as "skillport/idempotency_key"`,
    );
  });

  // A member of the other surface was dropped: REST's `async` given to execute_skill, or MCP's
  // `wait_ms` given to POST /v1/execute, and the call waited for the end (up to its timeout)
  // where its caller meant to get the record at once.
  it("how a surface waits, asked for in the other surface's words, pointed to its own", async () => {
    const { request } = await setUp();
    const run = { skill_id: "test.echo", params: { text: "hi" } };
    const told =
      "this call waits for the end; send async: true for the record at once, then GET /v1/executions/{id}?wait= to wait for its end";
    for (const name of ["wait_ms", "waitMs"]) {
      expect(refusal(await request("POST", "/v1/execute", { ...run, [name]: 0 }))).toMatchObject({
        code: "invalid_request",
        message: `${name}: is not allowed here; ${told}`,
        details: [{ path: name, message: `is not allowed here; ${told}` }],
      });
    }
    expect(() =>
      parseToolCall(
        { kind: "generic", name: "execute_skill" },
        { name: "execute_skill", arguments: { ...run, async: true } },
      ),
    ).toThrow(
      "async: is not allowed here; this call waits for the end; send wait_ms: 0 for the record at once, then get_execution to wait for its end",
    );
  });

  it("still ignores a member close to no name it takes, as a later version's member would be", async () => {
    const { request } = await setUp();
    const ran = await request("POST", "/v1/execute", {
      skill_id: "test.echo",
      params: { text: "hi" },
      client_version: "2.0",
    });
    expect(ran.statusCode, ran.body).toBe(200);
    expect((await request("POST", "/v1/discover", { query: "echo", metadata: {} })).statusCode).toBe(200);
    expect((await request("GET", "/v1/executions?_=1700000000")).statusCode).toBe(200);
  });

  it("in an MCP tool's arguments, by the same rule", () => {
    const call =
      (name: "execute_skill" | "discover_skills" | "get_execution", args: Record<string, unknown>) => () =>
        parseToolCall({ kind: "generic", name }, { name, arguments: args });
    expect(call("execute_skill", { skill_id: "test.echo", params: {}, timeout: 5 })).toThrow(
      'timeout: is not allowed here; did you mean "timeout_ms"?',
    );
    expect(call("discover_skills", { query: "echo", Limit: 3 })).toThrow(
      'Limit: is not allowed here; did you mean "limit"?',
    );
    expect(call("get_execution", { id: "exec_1", wait: 5 })).toThrow(
      'wait: is not allowed here; did you mean "wait_ms"?',
    );
  });
});
