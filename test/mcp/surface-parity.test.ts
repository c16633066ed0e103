import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ErrorBody,
  type ExecutionRecord,
  type Json,
  startServer,
  type TestServer,
} from "../contract/harness.js";
import type { McpTransportKind } from "./mcp-clients.js";
import { openRawSession, type RawSession } from "./raw-sessions.js";

/**
 * One core behind every surface: the same execute, sent as the same JSON text through
 * `POST /v1/execute` and through `execute_skill` over MCP stdio, `/mcp` and `mcp --remote`,
 * gets the same answer: the same refusal (code, message, details) or a record with the same
 * status, error and result. The calls are the odd ones, where a surface's own parsing
 * (Fastify's, the MCP SDK's zod schemas) could decide before the core does.
 *
 * Compared as the contract's error (`{code, message, details}`), wherever a surface carries
 * it: REST's error body, an `isError` result's `_meta["skillport/error"]`, a JSON-RPC
 * error's data, `/mcp`'s HTTP refusal. Three differences are by design, mapped here:
 * - execute_skill names places in the skill's params under its `params` argument
 *   (`params.expression`), where REST names them within `params` (`expression`);
 * - JSON refused as JSON (a prototype key, a number beyond doubles) is refused as the
 *   message that holds it, so MCP names the place in the JSON-RPC request
 *   (`params.arguments.params.data.__proto__`), REST in the body (`params.data.__proto__`);
 * - an idempotency key sent as a member is told where each surface takes one.
 */

type Outcome =
  | { refused: string; message: string; details?: unknown }
  | { record: { status: string; error: unknown; result: unknown } }
  /** A record whose run's end depends on timing (a 1 ms timeout): only that it was accepted. */
  | { accepted: true }
  /** A discover answer: its skills and scores (not its time). */
  | { discovered: unknown[] }
  | { unexpected: unknown };

interface Case {
  name: string;
  /** The execute body as JSON text, sent as written. */
  body: string;
  /** The run's end depends on timing: compare only that the call was accepted. */
  acceptedOnly?: boolean;
}

const echo = (dataText: string) => `{"skill_id":"json.query","params":{"data":${dataText},"expression":"@"}}`;
const deep = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
const withTimeout = (timeoutText: string) =>
  `{"skill_id":"math.evaluate","params":{"expression":"1+1"},"timeout_ms":${timeoutText}}`;
const skillId = (idText: string) => `{"skill_id":${idText},"params":{"expression":"1+1"}}`;

const CASES: Case[] = [
  // Keys that name prototypes in JavaScript, at every depth, spelled plainly or escaped.
  { name: "__proto__ in a document", body: echo(`{"__proto__":{"a":1}}`) },
  { name: "__proto__ deep in a document", body: echo(`[{"x":{"__proto__":{"polluted":true}}}]`) },
  { name: "__proto__ escaped", body: echo(`{"\\u005f_proto__":{"a":1}}`) },
  {
    name: "__proto__ among params",
    body: `{"skill_id":"json.query","params":{"__proto__":{"a":1},"data":1,"expression":"@"}}`,
  },
  {
    name: "__proto__ in the body",
    body: `{"skill_id":"json.query","params":{"data":1,"expression":"@"},"__proto__":{"a":1}}`,
  },
  {
    name: "__proto__ as a memory value",
    body: `{"skill_id":"memory.set","params":{"key":"parity","value":{"__proto__":{"admin":true}}}}`,
  },
  { name: "constructor.prototype", body: echo(`{"constructor":{"prototype":{"a":1}}}`) },
  {
    name: "constructor and prototype as plain keys",
    body: echo(`{"constructor":1,"prototype":{"a":1},"toString":"x","hasOwnProperty":2}`),
  },
  { name: "__proto__ as a string value", body: echo(`{"key":"__proto__","constructor":"prototype"}`) },
  // Numbers JSON can write but JavaScript reads oddly.
  { name: "-0", body: echo("-0") },
  { name: "a number beyond doubles", body: echo("1e400") },
  { name: "a huge integer", body: echo("123456789012345678901234567890") },
  { name: "the largest double", body: echo("1.7976931348623157e308") },
  { name: "NaN-like strings", body: echo(`["NaN","Infinity","-Infinity","1e400"]`) },
  // Text: escapes, lone surrogates, NUL.
  { name: "a lone high surrogate", body: echo(`"\\ud800"`) },
  { name: "a lone low surrogate as a key", body: echo(`{"\\udc00":1}`) },
  { name: "astral characters and NUL", body: echo(`{"\\ud83d\\ude00":"\\u0000"}`) },
  // Nesting at and beyond the limit.
  { name: "nested 99 levels", body: echo(deep(99)) },
  { name: "nested 100 levels", body: echo(deep(100)) },
  { name: "nested 150 levels", body: echo(deep(150)) },
  // Params that do not fit.
  { name: "params an array", body: `{"skill_id":"json.query","params":[1,2]}` },
  { name: "params null", body: `{"skill_id":"json.query","params":null}` },
  { name: "params a string", body: `{"skill_id":"json.query","params":"x"}` },
  { name: "params missing", body: `{"skill_id":"json.query"}` },
  { name: "a required param missing", body: `{"skill_id":"json.query","params":{"data":1}}` },
  { name: "a param of the wrong type", body: `{"skill_id":"json.query","params":{"data":1,"expression":5}}` },
  { name: "a param misspelled", body: `{"skill_id":"json.query","params":{"data":1,"expresion":"@"}}` },
  {
    name: "an unknown param",
    body: `{"skill_id":"json.query","params":{"data":1,"expression":"@","banana":1}}`,
  },
  {
    name: "an unknown member",
    body: `{"skill_id":"json.query","params":{"data":1,"expression":"@"},"banana":1}`,
  },
  {
    name: "a misnamed member",
    body: `{"skill_id":"json.query","params":{"data":1,"expression":"@"},"timeout":5}`,
  },
  {
    name: "an idempotency key as a member",
    body: `{"skill_id":"json.query","params":{"data":1,"expression":"@"},"idempotency_key":"k"}`,
  },
  {
    name: "a duplicate member",
    body: `{"skill_id":"json.query","params":{"data":1,"expression":"@","expression":"data"}}`,
  },
  { name: "a failing run", body: `{"skill_id":"math.evaluate","params":{"expression":"1/"}}` },
  // timeout_ms at and beyond its bounds.
  { name: "timeout_ms 0", body: withTimeout("0") },
  { name: "timeout_ms 1", body: withTimeout("1"), acceptedOnly: true },
  { name: "timeout_ms 300000", body: withTimeout("300000") },
  { name: "timeout_ms 300001", body: withTimeout("300001") },
  { name: "timeout_ms 1.5", body: withTimeout("1.5") },
  { name: "timeout_ms 1e3", body: withTimeout("1e3") },
  { name: "timeout_ms -0", body: withTimeout("-0") },
  { name: "timeout_ms 1e400", body: withTimeout("1e400") },
  { name: "timeout_ms a string", body: withTimeout(`"1000"`) },
  { name: "timeout_ms null", body: withTimeout("null") },
  // Skill ids that are almost right.
  { name: "skill id in other case", body: skillId(`"MATH.EVALUATE"`) },
  { name: "skill id with spaces", body: skillId(`" math.evaluate "`) },
  { name: "skill id with a tab", body: skillId(`"math.evaluate\\t"`) },
  { name: "skill id empty", body: skillId(`""`) },
  { name: "skill id a number", body: skillId("5") },
  { name: "skill id unknown", body: skillId(`"math.evaluat"`) },
  { name: "skill id with a lone surrogate", body: skillId(`"math\\ud800"`) },
  { name: "skill id a tool name", body: skillId(`"math_evaluate"`) },
];

/**
 * Calls of a skill's own tool, whose arguments are the skill's params, against
 * `POST /v1/execute` with those params. (Arguments that are no object never reach a tool:
 * MCP's schema of `tools/call` refuses them, as a protocol error.)
 */
const OWN_TOOL_CASES: Case[] = [
  `{"data":{"__proto__":{"a":1}},"expression":"@"}`,
  `{"__proto__":{"a":1},"data":1,"expression":"@"}`,
  `{"data":{"constructor":{"prototype":{}}},"expression":"@"}`,
  `{"data":{"constructor":1,"prototype":2},"expression":"@"}`,
  `{"data":1e400,"expression":"@"}`,
  `{"data":-0,"expression":"@"}`,
  `{"data":"\ud800","expression":"@"}`,
  `{"data":${deep(150)},"expression":"@"}`,
  `{"data":1}`,
  `{"data":1,"expression":5}`,
  `{"data":1,"expresion":"@"}`,
  `{"data":1,"expression":"@","banana":1}`,
  `{"data":1,"expression":"@","timeout_ms":5}`,
  `{}`,
].map((params) => ({ name: params.slice(0, 60), body: `{"skill_id":"json.query","params":${params}}` }));

/** `POST /v1/discover` bodies, sent as discover_skills' arguments. */
const DISCOVER_CASES: Case[] = [
  `{"query":"convert miles to kilometres"}`,
  `{"query":""}`,
  `{"query":"   "}`,
  `{"query":"${"x".repeat(1001)}"}`,
  `{"query":"\ud800 query json"}`,
  `{"query":5}`,
  `{"Query":"convert units"}`,
  `{"query":"convert units","limit":0}`,
  `{"query":"convert units","limit":51}`,
  `{"query":"convert units","limit":1.5}`,
  `{"query":"convert units","limit":"5"}`,
  `{"query":"convert units","limit":null}`,
  `{"query":"convert units","limit":1e400}`,
  `{"query":"convert units","Limit":3}`,
  `{"query":"convert units","tags":[]}`,
  `{"query":"convert units","tags":[""]}`,
  `{"query":"convert units","tags":"json"}`,
  `{"query":"query data","tags":["json"]}`,
  `{"query":"query data","tags":["__proto__","constructor"]}`,
  `{"query":"convert units","__proto__":{"limit":1}}`,
  `{"query":"convert units","tag":["json"]}`,
].map((body) => ({ name: body.slice(0, 60), body }));

/**
 * Execution ids read with `GET /v1/executions/{id}` (the id percent-encoded) and with
 * get_execution; `$id` stands for the id of a finished execution of the key.
 */
const GET_CASES: string[] = [
  "$id",
  "$ID",
  " $id",
  "$id\t",
  "exec_unknown",
  "a/b",
  "%41",
  "\u00e9x\u0000",
  "x".repeat(100),
  "x".repeat(101),
  "x".repeat(200),
  "x".repeat(201),
];

const SURFACES: McpTransportKind[] = ["stdio", "http", "remote"];

/** How a tool takes what the REST body holds: the body itself, or the skill's params. */
type ToolKind = "execute_skill" | "discover_skills" | "own tool";

describe("the same call on every surface", () => {
  let server: TestServer;
  let key: CreatedKey;
  const sessions = new Map<McpTransportKind, RawSession>();

  beforeAll(async () => {
    server = await startServer();
    key = await server.createRoomyKey({ name: "parity" });
    for (const kind of SURFACES) sessions.set(kind, await openRawSession(kind, server, key.secret));
  });

  afterAll(async () => {
    for (const session of sessions.values()) await session.close();
    await server?.stop();
  });

  const recordOutcome = async (id: string, acceptedOnly: boolean): Promise<Outcome> => {
    const res = await server.request("GET", `/v1/executions/${id}?wait=30`, { key: key.secret });
    const { status, error, result } = bodyOf<ExecutionRecord>(res);
    return acceptedOnly ? { accepted: true } : { record: { status, error, result } };
  };

  const discovered = (answer: Json): Outcome => ({
    discovered: (answer.results as Json[]).map(({ skill_id, score }) => ({ skill_id, score })),
  });

  const refusal = (error: { code: string; message: string; details?: unknown }): Outcome => ({
    refused: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  });

  async function viaRest(path: string, { body, acceptedOnly = false }: Case): Promise<Outcome> {
    const res = await server.request("POST", path, {
      key: key.secret,
      rawBody: body,
      contentType: "application/json",
    });
    if (res.status === 200 && path === "/v1/discover") return discovered(bodyOf<Json>(res));
    if (res.status === 200) return recordOutcome(bodyOf<ExecutionRecord>(res).id, acceptedOnly);
    const error = bodyOf<ErrorBody>(res)?.error;
    return error ? refusal(error) : { unexpected: `${res.status} ${res.text}` };
  }

  async function viaMcp(
    surface: McpTransportKind,
    tool: ToolKind,
    { body, acceptedOnly = false }: Case,
  ): Promise<Outcome> {
    const call =
      tool === "own tool"
        ? `{"name":"json_query","arguments":${body.slice(body.indexOf('"params":') + 9, -1)}}`
        : `{"name":"${tool}","arguments":${body}}`;
    const answer = await sessions.get(surface)?.request("tools/call", call);
    if (!answer) return { unexpected: "no session" };
    // JSON refused as JSON names its place in the JSON-RPC request: in the REST body, that is
    // within `params` for the skill's own tool, at the root for the others.
    const inBody = (error: ErrorBody["error"]) =>
      renamed(error, (path) => path.replace(/^params\.arguments\./, tool === "own tool" ? "params." : ""));
    if (answer.kind === "http") {
      const error = (answer.body as ErrorBody | undefined)?.error;
      return error ? refusal(inBody(error)) : { unexpected: answer };
    }
    const { message } = answer;
    if ("error" in message) {
      const error = message.error as { code: number; message: string; data?: ErrorBody["error"] };
      return error.data?.code ? refusal(inBody(error.data)) : { unexpected: error };
    }
    const result = message.result as { isError?: boolean; _meta?: Json; structuredContent?: Json };
    const executionId = result._meta?.["skillport/execution_id"];
    if (typeof executionId === "string") return recordOutcome(executionId, acceptedOnly);
    const error = result._meta?.["skillport/error"] as ErrorBody["error"] | undefined;
    if (error) return refusal(tool === "execute_skill" ? withRestPlaces(error) : error);
    return tool === "discover_skills" && result.structuredContent
      ? discovered(result.structuredContent)
      : { unexpected: result };
  }

  /** What kinds of answer each tool's cases got (`execute_skill refused`), so that none compares only refusals. */
  const answered = new Set<string>();

  async function expectOneAnswer(path: string, tool: ToolKind, call: Case): Promise<void> {
    const rest = await viaRest(path, call);
    expect(rest).not.toHaveProperty("unexpected");
    answered.add(`${tool} ${Object.keys(rest)[0]}`);
    const mcp: Partial<Record<McpTransportKind, Outcome>> = {};
    for (const surface of SURFACES) mcp[surface] = await viaMcp(surface, tool, call);
    expect(mcp, call.body.slice(0, 200)).toEqual({ stdio: rest, http: rest, remote: rest });
  }

  describe("execute_skill", () => {
    it.each(CASES)("$name", (call) => expectOneAnswer("/v1/execute", "execute_skill", call));
  });

  describe("a skill's own tool", () => {
    it.each(OWN_TOOL_CASES)("$name", (call) => expectOneAnswer("/v1/execute", "own tool", call));
  });

  describe("discover_skills", () => {
    it.each(DISCOVER_CASES)("$name", (call) => expectOneAnswer("/v1/discover", "discover_skills", call));
  });

  describe("get_execution", () => {
    let finished = "";
    beforeAll(async () => {
      const res = await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "math.evaluate", params: { expression: "6*7" } },
      });
      finished = bodyOf<ExecutionRecord>(res).id;
    });

    it.each(GET_CASES)("%j", async (pattern) => {
      const id = pattern.replace("$id", finished).replace("$ID", finished.toUpperCase());
      const res = await server.request("GET", `/v1/executions/${encodeURIComponent(id)}`, {
        key: key.secret,
      });
      const rest =
        res.status === 200
          ? { record: bodyOf<ExecutionRecord>(res) }
          : refusal(
              (bodyOf<ErrorBody>(res) ?? { error: { code: `${res.status}`, message: res.text } }).error,
            );
      answered.add(`get_execution ${Object.keys(rest)[0]}`);
      const mcp: Partial<Record<McpTransportKind, unknown>> = {};
      for (const surface of SURFACES) {
        const answer = await sessions
          .get(surface)
          ?.request("tools/call", `{"name":"get_execution","arguments":{"id":${JSON.stringify(id)}}}`);
        const result = answer?.kind === "jsonrpc" ? (answer.message.result as Json | undefined) : undefined;
        const error = (result?._meta as Json | undefined)?.["skillport/error"] as
          | ErrorBody["error"]
          | undefined;
        mcp[surface] =
          result?.isError === true && error
            ? refusal(error)
            : result?.structuredContent
              ? { record: result.structuredContent }
              : { unexpected: answer };
      }
      expect(mcp).toEqual({ stdio: rest, http: rest, remote: rest });
    });
  });

  it("compared answers as well as refusals of every tool", () => {
    expect([...answered].sort()).toEqual([
      "discover_skills discovered",
      "discover_skills refused",
      "execute_skill accepted",
      "execute_skill record",
      "execute_skill refused",
      "get_execution record",
      "get_execution refused",
      "own tool record",
      "own tool refused",
    ]);
  });
});

/** `error` with each place (in its message and details) as `rename` says it. */
function renamed(error: ErrorBody["error"], rename: (path: string) => string): ErrorBody["error"] {
  const [first] = error.details ?? [];
  const message =
    first && error.message.startsWith(`${first.path}: `)
      ? `${rename(first.path)}${error.message.slice(first.path.length)}`
      : error.message;
  const details = error.details?.map(({ path, message }) => ({ path: rename(path), message }));
  return { ...error, message, ...(details && { details }) };
}

/** An execute_skill refusal as REST says it (see the file's comment). */
function withRestPlaces(error: ErrorBody["error"]): ErrorBody["error"] {
  const inHeader = "send an idempotency key in the Idempotency-Key header";
  const sentInMeta = `send an idempotency key in the call's _meta, as "skillport/idempotency_key"`;
  const said = (text: string) => text.replace(sentInMeta, inHeader);
  const saidAsRest = {
    ...error,
    message: said(error.message),
    details: error.details?.map(({ path, message }) => ({ path, message: said(message) })),
  };
  if (error.code !== "invalid_params") return saidAsRest;
  return renamed(saidAsRest, (path) => (path === "params" ? "(root)" : path.replace(/^params\./, "")));
}
