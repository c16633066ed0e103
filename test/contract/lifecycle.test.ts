import { Agent, request as httpRequest } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionStatuses } from "../support/execution-statuses.js";
import {
  type ApiResponse,
  apiRequest,
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  exitCodeWithin,
  expectError,
  type Json,
  openRawConnection,
  parseRateLimitField,
  runCli,
  sleep,
  startServer,
  type TestServer,
} from "./harness.js";

/** Resolves once `key`'s owner has a running execution (so a signal lands mid-run). */
function untilRunning(server: TestServer, key: CreatedKey): Promise<ExecutionRecord> {
  return eventually(async () => {
    const res = await server.request("GET", "/v1/executions?status=running", { key: key.secret });
    return bodyOf<{ data: ExecutionRecord[] }>(res).data[0];
  });
}

/** GET over a keep-alive agent that never closes idle sockets itself; the body once it ends. */
function readStreamKeepingSocket(
  server: TestServer,
  path: string,
  key: string,
): { started: Promise<void>; ended: Promise<{ status: number; body: string }> } {
  const agent = new Agent({ keepAlive: true });
  let markStarted = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const ended = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      `${server.baseUrl}${path}`,
      { agent, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          markStarted();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
  return { started, ended };
}

// contract.md, "Product name and entry points": /healthz, /readyz, the OpenAPI document.
/** The parts of the OpenAPI document the response check reads. */
interface OpenApiResponse {
  description?: string;
  content?: Record<string, { schema: { $ref?: string } }>;
  headers?: Record<string, { required?: boolean }>;
}

interface OpenApiDocument {
  components: Json & { responses: Record<string, OpenApiResponse> };
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
}

/** The headers of contract.md a response may carry, each to be documented where it is sent. */
const CONTRACT_HEADERS = [
  "x-request-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-window",
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
  "location",
  "www-authenticate",
  "allow",
  "idempotent-replayed",
];

describe("contract: health and the OpenAPI document", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("/healthz and /readyz answer 200 without a key", async () => {
    const health = await server.request("GET", "/healthz");
    expect(health.status).toBe(200);
    const ready = await server.request("GET", "/readyz");
    expect(ready.status, ready.text).toBe(200);
  });

  it("serves GET /v1/openapi.json without a key: OpenAPI 3.1.0 with the /v1 paths", async () => {
    const res = await server.request("GET", "/v1/openapi.json");
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = bodyOf<{ openapi: string; paths: Json }>(res);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/discover",
        "/v1/execute",
        "/v1/executions",
        "/v1/executions/{id}",
        "/v1/executions/{id}/cancel",
        "/v1/executions/{id}/events",
        "/v1/skills",
        "/v1/skills/{skill_id}",
      ]),
    );
    // A document that tools can use: valid against the OpenAPI 3.1 schema, every $ref resolves.
    const validator = new Validator();
    expect(await validator.validate(doc)).toEqual({ valid: true });
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it("answers as the OpenAPI document describes: every 200 and error body fits its response schema", async () => {
    const doc = bodyOf<OpenApiDocument>(await server.request("GET", "/v1/openapi.json"));
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: "openapi", components: doc.components });
    const key = (await server.createRoomyKey()).secret;
    const executed = await server.request("POST", "/v1/execute", {
      key,
      json: { skill_id: "math.evaluate", params: { expression: "6*7" } },
    });
    const { id } = bodyOf<{ id: string }>(executed);
    const answers: [string, string, ApiResponse][] = [
      ["/v1/execute", "post", executed],
      [
        "/v1/discover",
        "post",
        await server.request("POST", "/v1/discover", { key, json: { query: "send a message" } }),
      ],
      ["/v1/discover", "post", await server.request("POST", "/v1/discover", { key, json: { query: "" } })],
      ["/v1/skills", "get", await server.request("GET", "/v1/skills?limit=3", { key })],
      ["/v1/skills/{skill_id}", "get", await server.request("GET", "/v1/skills/math.evaluate", { key })],
      ["/v1/skills/{skill_id}", "get", await server.request("GET", "/v1/skills/no.such.skill", { key })],
      ["/v1/executions", "get", await server.request("GET", "/v1/executions?limit=2", { key })],
      ["/v1/executions/{id}", "get", await server.request("GET", `/v1/executions/${id}`, { key })],
      ["/v1/executions/{id}", "get", await server.request("GET", `/v1/executions/${id}?wait=abc`, { key })],
      [
        "/v1/execute",
        "post",
        await server.request("POST", "/v1/execute", {
          key,
          json: { skill_id: "math.evaluate", params: { expression: "1" }, async: true },
        }),
      ],
      ["/v1/skills", "get", await server.request("GET", "/v1/skills")],
      ["/v1/skills", "get", await server.request("GET", "/v1/skills", { key: `${key}x` })],
    ];
    // Audit 25 #5: statuses the server sends that the document did not list: a cancel's
    // body refused before its handler, an over-long path segment, a replay's header.
    const cancel = `/v1/executions/${id}/cancel`;
    const replayed = { "idempotency-key": `openapi-${Date.now()}` };
    const execute = (json: Json) => server.request("POST", "/v1/execute", { key, json, headers: replayed });
    const sync = { skill_id: "math.evaluate", params: { expression: "1" } };
    await execute(sync);
    answers.push(
      [
        "/v1/executions/{id}/cancel",
        "post",
        await server.request("POST", cancel, { key, rawBody: "x", contentType: "text/plain" }),
      ],
      [
        "/v1/executions/{id}/cancel",
        "post",
        await server.request("POST", cancel, { key, rawBody: "{", contentType: "application/json" }),
      ],
      [
        "/v1/executions/{id}/cancel",
        "post",
        await server.request("POST", cancel, { key, json: { pad: "x".repeat(1_100_000) } }),
      ],
      ["/v1/executions/{id}/cancel", "post", await server.request("POST", cancel, { key })],
      [
        "/v1/executions/{id}/events",
        "get",
        await server.request("GET", `/v1/executions/${"x".repeat(5_000)}/events`, { key }),
      ],
      [
        "/v1/skills/{skill_id}",
        "get",
        await server.request("GET", `/v1/skills/${"x".repeat(5_000)}`, { key }),
      ],
      ["/v1/executions/{id}", "get", await server.request("GET", "/v1/executions/%ZZ", { key })],
      ["/v1/execute", "post", await execute(sync)],
    );
    const replays = answers.slice(-1).map(([, , res]) => res.headers.get("idempotent-replayed"));
    expect(replays).toEqual(["true"]);
    const limited = (await server.createKey({ plan: "enterprise", limitMinute: 1, limitDay: 10 })).secret;
    await server.request("GET", "/v1/skills", { key: limited });
    answers.push(["/v1/skills", "get", await server.request("GET", "/v1/skills", { key: limited })]);
    // Audit 27 F2: the document, which needs no key, listed only 200, yet a key sent with it counts.
    answers.push([
      "/v1/openapi.json",
      "get",
      await server.request("GET", "/v1/openapi.json", { key: limited }),
    ]);
    expect(answers.map(([, , res]) => res.status)).toEqual(
      expect.arrayContaining([200, 202, 400, 401, 404, 409, 413, 415, 429]),
    );
    for (const [path, method, res] of answers) {
      const described = doc.paths[path]?.[method]?.responses[String(res.status)];
      const ref = described?.content?.["application/json"]?.schema.$ref;
      expect(ref, `${method} ${path} ${res.status} is documented with a schema`).toBeTypeOf("string");
      const validate = ajv.getSchema(`openapi${ref}`);
      expect(validate, `${ref} compiles`).toBeTypeOf("function");
      expect(
        validate?.(bodyOf(res)),
        `${method} ${path} ${res.status}: ${JSON.stringify(validate?.errors)}`,
      ).toBe(true);
      // An error's code is one its status's description names.
      const code = bodyOf<{ error?: { code: string } }>(res).error?.code;
      if (code !== undefined) {
        expect(described?.description?.split(", "), `${method} ${path} ${res.status}`).toContain(code);
      }
      // Its headers as documented: each one required is sent, each one sent is described.
      const documented = new Map(
        Object.entries(described?.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]),
      );
      for (const [name, header] of documented) {
        if (header.required)
          expect(res.headers.has(name), `${method} ${path} ${res.status}: ${name}`).toBe(true);
      }
      for (const name of CONTRACT_HEADERS.filter((name) => res.headers.has(name))) {
        expect(documented.has(name), `${method} ${path} ${res.status} documents ${name}`).toBe(true);
      }
    }
  });

  it("describes the 405 every path answers another method with, and the Allow it sends", async () => {
    const doc = bodyOf<OpenApiDocument & { paths: Record<string, { description?: string }> }>(
      await server.request("GET", "/v1/openapi.json"),
    );
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: "openapi", components: doc.components });
    const described = doc.components.responses.MethodNotAllowed;
    const validate = ajv.getSchema(`openapi${described?.content?.["application/json"]?.schema.$ref}`);
    const key = (await server.createRoomyKey()).secret;
    for (const [path, item] of Object.entries(doc.paths)) {
      const documented = ["get", "post"].filter((method) => method in item).map((m) => m.toUpperCase());
      const other = documented.includes("POST") ? "GET" : "POST";
      const res = await server.request(other, path.replace("{id}", "exec_x").replace("{skill_id}", "x"), {
        key,
      });
      expect(res.status, `${other} ${path}: ${res.text}`).toBe(405);
      expect(validate?.(bodyOf(res)), `${other} ${path}: ${JSON.stringify(validate?.errors)}`).toBe(true);
      for (const [name, header] of Object.entries(described?.headers ?? {})) {
        if (header.required) expect(res.headers.has(name), `${other} ${path}: ${name}`).toBe(true);
      }
      // The Allow the path's description names is the one sent: its operations, HEAD beside GET.
      const allow = res.headers.get("allow") ?? "";
      expect(allow.split(", ").sort(), path).toEqual(
        [...documented, ...(documented.includes("GET") ? ["HEAD"] : [])].sort(),
      );
      expect(item.description, path).toContain("#/components/responses/MethodNotAllowed");
      expect(item.description, path).toContain(`Allow: ${allow}.`);
    }
  });

  it("an unknown path outside /v1 is 404 not_found in the same envelope", async () => {
    expectError(await server.request("GET", "/no/such/path"), 404, "not_found");
  });
});

// contract.md: running executions finish on SIGTERM (up to the deadline); a dead process's
// running executions end `execution_interrupted`.
describe("contract: shutdown and restart", { timeout: 60_000 }, () => {
  // SIGHUP (a terminal closed under `npm start`, a supervisor's stop) killed the process at
  // once: the request got no answer and its record stayed `running` until the next start.
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`on ${signal} an in-flight sync request still gets its completed record and the process exits 0`, async () => {
      const server = await startServer();
      try {
        const key = await server.createRoomyKey({ name: "shutdown" });
        const inFlight = server.request("POST", "/v1/execute", {
          key: key.secret,
          json: { skill_id: "util.wait", params: { ms: 1000 } },
        });
        await untilRunning(server, key);
        const signalledAt = Date.now();
        server.child.kill(signal);
        const res = await inFlight;
        expect(res.status, res.text).toBe(200);
        expect(bodyOf<ExecutionRecord>(res)).toMatchObject({
          status: "completed",
          result: { waited_ms: 1000 },
        });
        // Regression: the client's keep-alive connection held the process for its idle
        // timeout (72 s), far past the 10 s shutdown deadline.
        expect(await exitCodeWithin(server, 9_000 - (Date.now() - signalledAt))).toBe(0);
        expect(server.logs()).toContain(`"signal":"${signal}"`);
      } finally {
        await server.stop();
      }
    });
  }

  // contract.md, "Errors": 503 service_unavailable when "shutting down" (with Retry-After).
  // A new connection finds the port closed; a request whose headers were still arriving
  // when the signal came is the one that can reach the server, and is refused.
  it("on SIGTERM a REST request still arriving is refused 503 service_unavailable with Retry-After", async () => {
    const server = await startServer();
    try {
      const key = await server.createRoomyKey({ name: "late-rest" });
      const { socket, host, answer } = await openRawConnection(server);
      socket.write(`GET /v1/skills?limit=1 HTTP/1.1\r\nHost: ${host}\r\n`);
      await sleep(300);
      server.child.kill("SIGTERM");
      await eventually(async () => (server.logs().includes('"msg":"shutting down"') ? true : undefined));
      socket.end(`Authorization: Bearer ${key.secret}\r\nConnection: close\r\n\r\n`);
      const response = await answer;
      const error = expectError(response, 503, "service_unavailable");
      expect(response.headers.get("retry-after"), response.head).toMatch(/^[1-9]\d*$/);
      expect(error.retry_after).toBe(Number(response.headers.get("retry-after")));
      expect(await exitCodeWithin(server, 10_000)).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it("on SIGTERM a sync execution past the shutdown deadline is answered as interrupted, and the process exits 0", async () => {
    const server = await startServer({ env: { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "300" } });
    try {
      const key = await server.createRoomyKey({ name: "deadline" });
      const started = Date.now();
      const inFlight = server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "util.wait", params: { ms: 30_000 } },
      });
      await untilRunning(server, key);
      server.child.kill("SIGTERM");
      const res = await inFlight;
      expect(res.status, res.text).toBe(200);
      const record = bodyOf<ExecutionRecord>(res);
      expect(record).toMatchObject({ status: "failed", success: false });
      expect(record.error?.code).toBe("execution_interrupted");
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(await server.exited).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it("on a second SIGINT during the shutdown, running executions end execution_interrupted at once, a line says so, and the process exits", async () => {
    // Audit 22, operations #5: Ctrl-C twice killed the process at once, silently, with its
    // runs left `running` in the store until the next start.
    const server = await startServer({ env: { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "30000" } });
    try {
      const key = await server.createRoomyKey({ name: "second-signal" });
      const inFlight = server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "util.wait", params: { ms: 60_000 }, timeout_ms: 120_000 },
      });
      await untilRunning(server, key);
      server.child.kill("SIGINT");
      await eventually(async () => (server.logs().includes('"msg":"shutting down"') ? true : undefined));
      const signalledAt = Date.now();
      server.child.kill("SIGINT");
      const res = await inFlight;
      expect(res.status, res.text).toBe(200);
      expect(bodyOf<ExecutionRecord>(res)).toMatchObject({
        status: "failed",
        error: { code: "execution_interrupted" },
      });
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      expect(await exitCodeWithin(server, 10_000)).toBe(0);
      expect(server.logs()).toContain('"executions":1,"msg":"second signal: interrupting executions now"');
    } finally {
      await server.stop();
    }
  });

  it("on SIGTERM an open event stream ends and does not hold the process open", async () => {
    const server = await startServer({ env: { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "300" } });
    try {
      const key = await server.createRoomyKey({ name: "sse-shutdown" });
      const res = await server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "util.wait", params: { ms: 60_000 }, async: true },
      });
      const { id } = bodyOf<ExecutionRecord>(res);
      await untilRunning(server, key);
      // A client that keeps idle sockets for ever (fetch would drop them after 4 s).
      const streaming = readStreamKeepingSocket(server, `/v1/executions/${id}/events`, key.secret);
      // Signal only once the stream is open (regression: on a busy machine a fixed sleep let
      // SIGTERM arrive first, and the request was rightly refused with 503).
      await streaming.started;
      const signalledAt = Date.now();
      server.child.kill("SIGTERM");
      const stream = await streaming.ended;
      expect(stream.status).toBe(200);
      expect(stream.body).toMatch(/^id: 1\nevent: status\n/);
      // It ends after the terminal status (contract.md), here the interruption at the deadline.
      expect(stream.body).toContain('"status":"failed"');
      expect(stream.body).toContain("execution_interrupted");
      // Regression: the stream's idle keep-alive socket held the process open.
      expect(await exitCodeWithin(server, 9_000 - (Date.now() - signalledAt))).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it("after a crash (SIGKILL), the next process on the same data dir ends the running execution as interrupted", async () => {
    const first = await startServer();
    try {
      const key = await first.createRoomyKey({ name: "crash" });
      const res = await first.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "util.wait", params: { ms: 60_000 }, async: true },
      });
      expect(res.status).toBe(202);
      const { id } = bodyOf<ExecutionRecord>(res);
      await untilRunning(first, key);
      first.child.kill("SIGKILL");
      await first.exited;

      const second = await startServer({ dataDir: first.dataDir });
      try {
        const record = await eventually(async () => {
          const got = await apiRequest(second.baseUrl, "GET", `/v1/executions/${id}?wait=5`, {
            key: key.secret,
          });
          const body = bodyOf<ExecutionRecord>(got);
          return body.status === "running" || body.status === "queued" ? undefined : body;
        }, 30_000);
        expect(record).toMatchObject({ id, status: "failed", success: false, result: null });
        expect(record.error?.code).toBe("execution_interrupted");
        // Audit 22, operations #9: the line gave a count only. It names the executions and
        // the process that left them.
        const takeover = second
          .logs()
          .split("\n")
          .find((line) => line.includes('"msg":"took over executions of a stopped process"'));
        expect(JSON.parse(takeover ?? "{}")).toMatchObject({
          count: 1,
          execution_ids: [id],
          stopped_runners: [{ runner_id: expect.stringMatching(/^runner_/), pid: first.child.pid }],
        });
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });

  it("a server that cannot listen exits 1 at once, says why in a log line, and has taken over none of the queued executions", async () => {
    const first = await startServer({
      env: { SKILLPORT_ASYNC_CONCURRENCY: "1", SKILLPORT_SHUTDOWN_TIMEOUT_MS: "0" },
    });
    const held = createTcpServer();
    try {
      // One run, then two queued behind it; a shutdown interrupts the run and leaves the queue.
      const key = await first.createRoomyKey({ name: "queued" });
      for (let i = 0; i < 3; i++) {
        const res = await first.request("POST", "/v1/execute", {
          key: key.secret,
          json: { skill_id: "util.wait", params: { ms: 60_000 }, async: true },
        });
        expect(res.status).toBe(202);
      }
      await untilRunning(first, key);
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(0);
      const statuses = () => executionStatuses(first.dataDir);
      expect(statuses()).toEqual(["failed", "queued", "queued"]);

      await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
      const { port } = held.address() as { port: number };
      const started = Date.now();
      const failed = await runCli(["serve"], {
        SKILLPORT_DATA_DIR: first.dataDir,
        SKILLPORT_HOST: "127.0.0.1",
        SKILLPORT_PORT: String(port),
        SKILLPORT_DISCOVERY_MODE: "lexical",
      });
      expect(failed.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(20_000);
      const fatal = failed.stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((entry) => entry.msg === "cannot listen");
      expect(fatal?.level, failed.stdout + failed.stderr).toBe(60);
      expect(statuses()).toEqual(["failed", "queued", "queued"]);
    } finally {
      held.close();
      await first.stop();
    }
  });

  it("after a restart, keys, records and limits persist in the data dir", async () => {
    const first = await startServer();
    try {
      const key = await first.createKey({ name: "persist" });
      const res = await first.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "math.evaluate", params: { expression: "1+2" } },
      });
      const record = bodyOf<ExecutionRecord>(res);
      // Stop the process but keep its data dir (stop() would remove it).
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(0);
      const second = await startServer({ dataDir: first.dataDir });
      try {
        const got = await second.request("GET", `/v1/executions/${record.id}`, { key: key.secret });
        expect(got.status, got.text).toBe(200);
        expect(bodyOf<ExecutionRecord>(got)).toEqual(record);
        // Two requests in two processes, one day window.
        expect(parseRateLimitField(got.headers.get("ratelimit")).get("day")?.r).toBe(998);
        const again = await second.request("POST", "/v1/discover", { key: key.secret, json: { query: "x" } });
        expect(again.status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });
});
