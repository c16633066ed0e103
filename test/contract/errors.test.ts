import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  expectDetails,
  expectError,
  type Json,
  parseRawResponse,
  type RawResponse,
  sleep,
  startServer,
  stopExpectingNoErrors,
  type TestServer,
} from "./harness.js";

/**
 * POSTs a chunked JSON body of about `totalBytes` to /v1/execute over a raw socket, a
 * chunk at a time, and stops sending once the answer starts: a server may answer 413
 * and close before the rest is sent, which fetch reports as a failed write.
 */
function postChunked(server: TestServer, secret: string, totalBytes: number): Promise<RawResponse> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => {
      received += data;
    });
    socket.on("error", () => {
      // A write after the server closed: what was received is the answer.
    });
    socket.on("close", () => {
      try {
        resolve(parseRawResponse(received));
      } catch (err) {
        reject(err);
      }
    });
    socket.on("connect", async () => {
      socket.write(
        "POST /v1/execute HTTP/1.1\r\n" +
          `Host: ${hostname}:${port}\r\n` +
          `Authorization: Bearer ${secret}\r\n` +
          "Content-Type: application/json\r\n" +
          "Transfer-Encoding: chunked\r\n" +
          "Connection: close\r\n\r\n",
      );
      const piece = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
      socket.write(piece('{"skill_id":"message.send","params":{"channel":"c","text":"'));
      const chunk = "x".repeat(64 * 1024);
      for (let sent = 0; sent < totalBytes && received === "" && !socket.destroyed; sent += chunk.length) {
        socket.write(piece(chunk));
        await sleep(5);
      }
      if (received === "" && !socket.destroyed) socket.end(`${piece('"}}')}0\r\n\r\n`);
    });
  });
}

// contract.md, "Errors": every row of the table, against the real server.
describe("contract: the error table", () => {
  let server: TestServer;
  let full: CreatedKey;

  beforeAll(async () => {
    server = await startServer();
    full = await server.createRoomyKey({ name: "errors" });
  });
  afterAll(() => stopExpectingNoErrors(server));

  const execute = (json: unknown, headers?: Record<string, string>) =>
    server.request("POST", "/v1/execute", { key: full.secret, json, headers });

  describe("400 invalid_request", () => {
    it("refuses a body that is not valid JSON", async () => {
      const res = await server.request("POST", "/v1/execute", {
        key: full.secret,
        rawBody: '{"skill_id": "math.evaluate", ',
        contentType: "application/json",
      });
      expect(expectError(res, 400, "invalid_request").message).toMatch(/not valid JSON/);
    });

    it("refuses a missing required field, with details naming it", async () => {
      const error = expectError(await execute({ params: { expression: "1" } }), 400, "invalid_request");
      expect(expectDetails(error).map((d) => d.path)).toContain("skill_id");
    });

    it("refuses a missing params object", async () => {
      const error = expectError(await execute({ skill_id: "math.evaluate" }), 400, "invalid_request");
      expect(expectDetails(error).map((d) => d.path)).toContain("params");
    });

    it.each([
      ["params is a string", { skill_id: "math.evaluate", params: "1+1" }, "params"],
      [
        "async is a string",
        { skill_id: "math.evaluate", params: { expression: "1" }, async: "yes" },
        "async",
      ],
      ["skill_id is a number", { skill_id: 42, params: {} }, "skill_id"],
      [
        "timeout_ms is a string",
        { skill_id: "math.evaluate", params: { expression: "1" }, timeout_ms: "100" },
        "timeout_ms",
      ],
    ])("refuses a field of the wrong type (%s), with details", async (_name, body, path) => {
      const error = expectError(await execute(body), 400, "invalid_request");
      expect(expectDetails(error).map((d) => d.path)).toContain(path);
    });

    // Audit 25, finding 6: the words of JSON, as over MCP (one rule, in parseOrThrow).
    it("tells a client that sent params as a string of JSON to send the object, and calls a record an object", async () => {
      const asText = expectError(
        await execute({ skill_id: "math.evaluate", params: JSON.stringify({ expression: "1+1" }) }),
        400,
        "invalid_request",
      );
      expect(asText.message).toBe("params: must be a JSON object, not a string holding JSON");
      expect(expectDetails(asText)).toEqual([
        { path: "params", message: "must be a JSON object, not a string holding JSON" },
      ]);
      const asArray = expectError(
        await execute({ skill_id: "math.evaluate", params: [] }),
        400,
        "invalid_request",
      );
      expect(asArray.message).toBe("params: must be an object, not an array");
    });

    // Audit 25, finding 6: null is still refused (it is no value these fields take), and the
    // refusal says that leaving the field out gives its default.
    it("refuses a null for an optional field, saying to omit it for the default", async () => {
      const timeout = expectError(
        await execute({ skill_id: "math.evaluate", params: { expression: "1" }, timeout_ms: null }),
        400,
        "invalid_request",
      );
      expect(timeout.message).toBe("timeout_ms: must be a number, not null; omit it to use the default");
      const discover = expectError(
        await server.request("POST", "/v1/discover", {
          key: full.secret,
          json: { query: "hash", limit: null },
        }),
        400,
        "invalid_request",
      );
      expect(discover.message).toBe("limit: must be a number, not null; omit it to use the default");
      const param = expectError(
        await execute({ skill_id: "time.convert", params: { time: "now", from_timezone: null } }),
        422,
        "invalid_params",
      );
      expect(param.message).toBe("from_timezone: must be a string, not null; omit it to use the default");
      // Regression (audit 25, finding 5): zod refuses a null for a record, an enum or a union
      // with other issues than for a string or a number, and those got no hint.
      for (const [skill_id, params, path] of [
        ["http.request", { url: "https://example.com", headers: null }, "headers"],
        ["id.uuid", { version: null }, "version"],
        ["csv.to_json", { csv: "a,b\n1,2", delimiter: null }, "delimiter"],
        ["time.diff", { start: "2026-01-01", end: null }, "end"],
      ] as const) {
        const refused = expectError(await execute({ skill_id, params }), 422, "invalid_params");
        expect(refused.message, skill_id).toMatch(
          new RegExp(`^${path}: must be .*; omit it to use the default$`),
        );
      }
      const required = expectError(
        await execute({ skill_id: "math.evaluate", params: { expression: null } }),
        422,
        "invalid_params",
      );
      expect(required.message).toBe("expression: must be a string, not null");
    });

    it.each([0, 300_001, 1.5, -1])(
      "refuses timeout_ms = %s (1 ≤ timeout_ms ≤ 300000, integer)",
      async (t) => {
        const error = expectError(
          await execute({ skill_id: "math.evaluate", params: { expression: "1" }, timeout_ms: t }),
          400,
          "invalid_request",
        );
        expect(expectDetails(error).map((d) => d.path)).toContain("timeout_ms");
      },
    );

    it("names the contract's bound first for a timeout_ms far out of range (1e308)", async () => {
      const error = expectError(
        await execute({ skill_id: "math.evaluate", params: { expression: "1" }, timeout_ms: 1e308 }),
        400,
        "invalid_request",
      );
      expect(error.message).toContain("300000");
      expect(error.message).not.toContain("9007199254740991");
    });

    it("accepts the bounds timeout_ms = 1 and 300000", async () => {
      for (const timeout_ms of [1, 300_000]) {
        const res = await execute({ skill_id: "math.evaluate", params: { expression: "1" }, timeout_ms });
        expect(res.status, res.text).toBe(200);
      }
    });

    it("refuses a JSON body that is not an object", async () => {
      expectError(await execute([1, 2, 3]), 400, "invalid_request");
      expectError(await execute("just a string"), 400, "invalid_request");
    });

    it("refuses an empty body declared as JSON", async () => {
      const res = await server.request("POST", "/v1/discover", {
        key: full.secret,
        rawBody: "",
        contentType: "application/json",
      });
      expectError(res, 400, "invalid_request");
    });

    it("refuses a URL with bad percent-encoding in the contract's envelope, after admission", async () => {
      for (const path of ["/v1/skills/%E0%A4%A", "/v1/executions/%FF"]) {
        const res = await server.request("GET", path, { key: full.secret });
        expectError(res, 400, "invalid_request");
        expect(res.headers.get("x-ratelimit-limit"), path).toMatch(/^\d+$/);
        // Without a key it is refused for the key first, like every other /v1 request.
        expectError(await server.request("GET", path), 401, "missing_api_key");
      }
    });

    it("refuses an over-long path parameter in the contract's envelope, after admission", async () => {
      const path = `/v1/executions/${"a".repeat(150)}`;
      const res = await server.request("GET", path, { key: full.secret });
      expectError(res, 400, "invalid_request");
      expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
      expectError(await server.request("GET", path), 401, "missing_api_key");
    });

    // Audit 25, nit: a long URL was refused as "The request headers are too large."
    it("refuses a URL too long for Node's parser, saying the request line or headers are too large", async () => {
      const res = await server.request("GET", `/v1/skills?q=${"a".repeat(70_000)}`, { key: full.secret });
      expectError(res, 400, "invalid_request");
      expect(bodyOf<{ error: { message: string } }>(res).error.message).toMatch(
        /^The request line or headers are too large, or the header lines are too many \(at most 1000\)\.$/,
      );
    });

    it("refuses a body with a __proto__ key (prototype poisoning) as invalid_request", async () => {
      const res = await server.request("POST", "/v1/execute", {
        key: full.secret,
        rawBody: '{"skill_id":"math.evaluate","params":{"expression":"1"},"__proto__":{"polluted":true}}',
        contentType: "application/json",
      });
      expect(expectError(res, 400, "invalid_request").message).toMatch(/forbidden key \(__proto__/);
    });

    it("refuses an Idempotency-Key longer than 255 characters, and takes one of 255", async () => {
      const res = await execute(
        { skill_id: "math.evaluate", params: { expression: "1" } },
        { "idempotency-key": "k".repeat(256) },
      );
      const error = expectError(res, 400, "invalid_request");
      // The details name the header at fault, not the body.
      expect(error.details?.map((detail) => detail.path)).toEqual(["Idempotency-Key"]);
      // contract.md: "≤ 255 chars": 255 itself is a key.
      const longest = await execute(
        { skill_id: "math.evaluate", params: { expression: "1" } },
        { "idempotency-key": "k".repeat(255) },
      );
      expect(longest.status, longest.text).toBe(200);
    });
  });

  describe("401", () => {
    it("missing_api_key without an Authorization header, with WWW-Authenticate: Bearer", async () => {
      const res = await server.request("POST", "/v1/discover", { json: { query: "send" } });
      expectError(res, 401, "missing_api_key");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    it("missing_api_key for an Authorization header of another scheme", async () => {
      const res = await server.request("POST", "/v1/discover", {
        json: { query: "send" },
        headers: { authorization: "Basic dXNlcjpwYXNz" },
      });
      expectError(res, 401, "missing_api_key");
    });

    it("invalid_api_key for a malformed key", async () => {
      for (const secret of ["nope", "sk_live_short", `sk_prod_${"a".repeat(36)}`]) {
        expectError(
          await server.request("POST", "/v1/discover", { key: secret, json: { query: "send" } }),
          401,
          "invalid_api_key",
        );
      }
      // A key was sent, with something after it: malformed, not missing.
      const full = (await server.createKey()).secret;
      for (const authorization of [`Bearer ${full} extra`, `Bearer ${full.slice(0, 20)} ${full.slice(20)}`]) {
        const res = await server.request("POST", "/v1/discover", {
          json: { query: "send" },
          headers: { authorization },
        });
        expect(expectError(res, 401, "invalid_api_key").message).not.toContain(full.slice(8));
      }
    });
  });

  describe("403 insufficient_scope", () => {
    it("refuses a read-only key on POST /v1/execute", async () => {
      const readOnly = await server.createRoomyKey({ scope: "read-only" });
      expectError(
        await server.request("POST", "/v1/execute", {
          key: readOnly.secret,
          json: { skill_id: "math.evaluate", params: { expression: "1" } },
        }),
        403,
        "insufficient_scope",
      );
    });
  });

  describe("404", () => {
    it("skill_not_found for an unknown skill_id on execute", async () => {
      expectError(await execute({ skill_id: "no.such.skill", params: {} }), 404, "skill_not_found");
    });

    // Audit 25, finding 6: a skill's MCP tool name (or another spelling of its id) given as
    // its id is answered with the id meant.
    it("skill_not_found naming the id a tool name spells, on execute and GET /v1/skills/{id}", async () => {
      const meant = 'No skill has the id "math_evaluate"; did you mean "math.evaluate"?';
      const executed = expectError(
        await execute({ skill_id: "math_evaluate", params: { expression: "1" } }),
        404,
        "skill_not_found",
      );
      expect(executed.message).toBe(meant);
      const read = expectError(
        await server.request("GET", "/v1/skills/math_evaluate", { key: full.secret }),
        404,
        "skill_not_found",
      );
      expect(read.message).toBe(meant);
      const unknown = expectError(
        await execute({ skill_id: "no.such.skill", params: {} }),
        404,
        "skill_not_found",
      );
      expect(unknown.message).toBe('No skill has the id "no.such.skill".');
      // Claude Code's name for a skillport tool, sent as an id.
      const prefixed = expectError(
        await execute({ skill_id: "mcp__skillport__math_evaluate", params: { expression: "1" } }),
        404,
        "skill_not_found",
      );
      expect(prefixed.message).toBe(
        'No skill has the id "mcp__skillport__math_evaluate"; did you mean "math.evaluate"?',
      );
    });

    it("skill_not_found for GET /v1/skills/{unknown}", async () => {
      expectError(
        await server.request("GET", "/v1/skills/no.such.skill", { key: full.secret }),
        404,
        "skill_not_found",
      );
    });

    it("execution_not_found for an unknown execution id", async () => {
      for (const path of [
        "/v1/executions/exec_doesnotexist0000000000",
        "/v1/executions/exec_doesnotexist0000000000/events",
      ]) {
        expectError(await server.request("GET", path, { key: full.secret }), 404, "execution_not_found");
      }
      expectError(
        await server.request("POST", "/v1/executions/exec_doesnotexist0000000000/cancel", {
          key: full.secret,
        }),
        404,
        "execution_not_found",
      );
    });

    it("execution_not_found for a record of another owner, on every execution endpoint", async () => {
      const ownerA = await server.createRoomyKey({ owner: "a" });
      const ownerB = await server.createRoomyKey({ owner: "b" });
      const res = await server.request("POST", "/v1/execute", {
        key: ownerA.secret,
        json: { skill_id: "util.wait", params: { ms: 20_000 }, async: true },
      });
      expect(res.status, res.text).toBe(202);
      const { id } = bodyOf<ExecutionRecord>(res);
      expect((await server.request("GET", `/v1/executions/${id}`, { key: ownerA.secret })).status).toBe(200);
      expectError(
        await server.request("GET", `/v1/executions/${id}`, { key: ownerB.secret }),
        404,
        "execution_not_found",
      );
      expectError(
        await server.request("GET", `/v1/executions/${id}/events`, { key: ownerB.secret }),
        404,
        "execution_not_found",
      );
      expectError(
        await server.request("POST", `/v1/executions/${id}/cancel`, { key: ownerB.secret }),
        404,
        "execution_not_found",
      );
      // B's refused cancel left A's execution running; A can still cancel it.
      const cancel = await server.request("POST", `/v1/executions/${id}/cancel`, { key: ownerA.secret });
      expect(cancel.status, cancel.text).toBe(200);
      expect(bodyOf<ExecutionRecord>(cancel).status).toBe("cancelled");
    });

    it("not_found for an unknown /v1 path", async () => {
      expectError(await server.request("GET", "/v1/nothing-here", { key: full.secret }), 404, "not_found");
      expectError(
        await server.request("POST", "/v1/executee", { key: full.secret, json: {} }),
        404,
        "not_found",
      );
    });

    // Regression (audit 23, new user #7): the address `npm start` prints answered a bare 404.
    it("not_found at the root, pointing a person to the dashboard and the API's description", async () => {
      for (const accept of ["text/html", "application/json"]) {
        const res = await server.request("GET", "/", { headers: { accept } });
        const error = expectError(res, 404, "not_found");
        expect(error.message).toContain("/dashboard");
        expect(error.message).toContain("/v1/openapi.json");
      }
    });

    it("not_found for an unknown path before its body is read, whatever the body", async () => {
      for (const [contentType, rawBody] of [
        ["application/json", '{"skill_id":"x"'],
        ["application/json", `{"text":"${"x".repeat(1024 * 1024 + 16)}"}`],
        ["text/plain", "x"],
      ] as const) {
        const res = await server.request("POST", "/v1/executee", { key: full.secret, rawBody, contentType });
        expectError(res, 404, "not_found");
        // Without a key, admission answers first, still before the body.
        expectError(
          await server.request("POST", "/v1/executee", { rawBody, contentType }),
          401,
          "missing_api_key",
        );
      }
    });
  });

  describe("405 method_not_allowed", () => {
    it.each([
      ["GET", "/v1/execute", "POST"],
      ["DELETE", "/v1/discover", "POST"],
      ["POST", "/v1/skills", "GET"],
      ["DELETE", "/v1/executions/exec_x", "GET"],
    ])("%s %s answers 405 with an Allow header listing %s", async (method, path, allowed) => {
      const res = await server.request(method, path, { key: full.secret });
      expectError(res, 405, "method_not_allowed");
      const allow = (res.headers.get("allow") ?? "").split(",").map((m) => m.trim());
      expect(allow).toContain(allowed);
      expect(allow).not.toContain(method);
    });

    // Audit, session 38: the refusal asked for a key first (401 missing_api_key), on a path
    // that needs none, and spent the address's failed-authentication budget.
    it("answers 405 on /v1/openapi.json without a key, as GET there needs none", async () => {
      for (const method of ["POST", "DELETE"]) {
        const res = await server.request(method, "/v1/openapi.json");
        expectError(res, 405, "method_not_allowed");
        expect(res.headers.get("allow")).toBe("GET, HEAD");
      }
      // A path that needs a key still asks for it first.
      expectError(await server.request("GET", "/v1/execute"), 401, "missing_api_key");
    });

    it.each(["TRACE", "SEARCH", "PROPFIND", "QUERY"])(
      "%s, a method Node knows, answers 405 as well",
      async (method) => {
        const { request } = await import("undici");
        const res = await request(`${server.baseUrl}/v1/discover`, {
          method,
          headers: { authorization: `Bearer ${full.secret}` },
        });
        expect(res.statusCode).toBe(405);
        expect(res.headers.allow).toBe("POST");
        expect(((await res.body.json()) as { error: { code: string } }).error.code).toBe(
          "method_not_allowed",
        );
      },
    );

    it("answers 405 before reading the body, whatever the body", async () => {
      for (const [contentType, rawBody] of [
        ["text/plain", "x"],
        ["application/json", "{bad"],
      ]) {
        const res = await server.request("PUT", "/v1/discover", { key: full.secret, rawBody, contentType });
        expectError(res, 405, "method_not_allowed");
      }
    });
  });

  describe("409", () => {
    it("execution_not_cancellable when cancelling a completed execution", async () => {
      const res = await execute({ skill_id: "math.evaluate", params: { expression: "1+1" } });
      expect(bodyOf<ExecutionRecord>(res).status).toBe("completed");
      const { id } = bodyOf<ExecutionRecord>(res);
      expectError(
        await server.request("POST", `/v1/executions/${id}/cancel`, { key: full.secret }),
        409,
        "execution_not_cancellable",
      );
    });

    it("idempotency_in_progress when a sync request repeats while the first still runs", async () => {
      const key = await server.createRoomyKey({ owner: "idem-progress" });
      const body = { skill_id: "util.wait", params: { ms: 4000 } };
      const headers = { "idempotency-key": "in-progress-1" };
      const first = server.request("POST", "/v1/execute", { key: key.secret, json: body, headers });
      // Repeat only once the first is visibly running, so the order of the two is certain.
      await eventually(async () => {
        const list = await server.request("GET", "/v1/executions?status=running", { key: key.secret });
        return bodyOf<{ data: ExecutionRecord[] }>(list).data.length > 0 ? true : undefined;
      });
      const repeat = await server.request("POST", "/v1/execute", { key: key.secret, json: body, headers });
      // Regression (audit 26 #7, left open in session 26): the 409 did not say which run was
      // going, so a caller could only repeat blindly; its id now lets it follow that run.
      const refusal = expectError(repeat, 409, "idempotency_in_progress") as { execution_id?: string };
      expect(refusal.execution_id).toMatch(/^exec_/);
      // Only the run's own key can be told: another key's same Idempotency-Key is its own.
      const otherKey = await server.createRoomyKey({ owner: "idem-progress" });
      const other = await server.request("POST", "/v1/execute", {
        key: otherKey.secret,
        json: { ...body, async: true },
        headers,
      });
      expect(other.status).toBe(202);
      expect(bodyOf<ExecutionRecord>(other).id).not.toBe(refusal.execution_id);
      const followed = await server.request("GET", `/v1/executions/${refusal.execution_id}?wait=10`, {
        key: key.secret,
      });
      const firstRes = await first;
      expect(firstRes.status).toBe(200);
      expect(bodyOf<ExecutionRecord>(firstRes).status).toBe("completed");
      expect(bodyOf<ExecutionRecord>(followed)).toEqual(bodyOf<ExecutionRecord>(firstRes));
    });
  });

  describe("413 payload_too_large", () => {
    // Regression (audit 22, skills F16): the message named no limit, and skills' params are
    // sized in characters, which a client cannot turn into this limit without the number.
    it("refuses a body over 1 MiB, naming the limit in bytes", async () => {
      const res = await execute({
        skill_id: "message.send",
        params: { channel: "big", text: "x".repeat(1024 * 1024 + 16) },
      });
      expect(expectError(res, 413, "payload_too_large").message).toBe(
        "The request body is too large: the limit is 1048576 bytes.",
      );
    });

    it("refuses a chunked body (no Content-Length) once it passes 1 MiB", async () => {
      const res = await postChunked(server, full.secret, 2 * 1024 * 1024);
      expect(expectError(res, 413, "payload_too_large").message).toMatch(/the limit is 1048576 bytes/);
    });

    it("accepts a body just under 1 MiB (it gets as far as params validation)", async () => {
      const res = await execute({
        skill_id: "message.send",
        params: { channel: "big", text: "x".repeat(1024 * 1024 - 200) },
      });
      expectError(res, 422, "invalid_params");
    });
  });

  describe("415 unsupported_media_type", () => {
    it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml"])(
      "refuses a %s body",
      async (contentType) => {
        const res = await server.request("POST", "/v1/discover", {
          key: full.secret,
          rawBody: contentType === "application/x-www-form-urlencoded" ? "query=send" : "send a message",
          contentType,
        });
        expectError(res, 415, "unsupported_media_type");
      },
    );

    it("refuses JSON in another charset, or compressed, which read as UTF-8 would be stored corrupted", async () => {
      const body = '{"query":"café"}';
      for (const [contentType, headers] of [
        ["application/json; charset=iso-8859-1", {}],
        ['application/json; charset="UTF-16"', {}],
        ["application/json", { "content-encoding": "gzip" }],
      ] as const) {
        const res = await server.request("POST", "/v1/discover", {
          key: full.secret,
          rawBody: body,
          contentType,
          headers,
        });
        expect(expectError(res, 415, "unsupported_media_type").message).toMatch(/UTF-8|uncompressed/);
      }
      // UTF-8 named in any of its spellings, and ASCII, are JSON as usual.
      for (const charset of ["utf-8", "UTF8", '"utf-8"', "us-ascii"]) {
        const res = await server.request("POST", "/v1/discover", {
          key: full.secret,
          rawBody: body,
          contentType: `application/json; charset=${charset}`,
          headers: { "content-encoding": "identity" },
        });
        expect(res.status, charset).toBe(200);
      }
    });

    // Left open until session 39: such bytes became U+FFFD, and were stored as sent.
    it("refuses a body that is not UTF-8 as invalid JSON, naming the first byte that is not", async () => {
      const latin1 = Buffer.from('{"query":"café"}', "latin1");
      const refused = await server.request("POST", "/v1/discover", {
        key: full.secret,
        rawBody: latin1,
        contentType: "application/json",
      });
      expect(expectError(refused, 400, "invalid_request").message).toBe(
        "The request body is not valid JSON: it is not UTF-8, which JSON must be: byte 13 is 0xE9 (send the text encoded as UTF-8).",
      );
      // U+FFFD sent as UTF-8 is a character like any other, before the bytes that are not and alone.
      const spelled = Buffer.concat([
        Buffer.from('{"query":"\uFFFD'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      const atByte = await server.request("POST", "/v1/discover", {
        key: full.secret,
        rawBody: spelled,
        contentType: "application/json",
      });
      expect(expectError(atByte, 400, "invalid_request").message).toContain("byte 13 is 0xC3");
      const sent = await server.request("POST", "/v1/discover", {
        key: full.secret,
        rawBody: Buffer.from('{"query":"send \uFFFD a message"}'),
        contentType: "application/json",
      });
      expect(sent.status).toBe(200);
    });
  });

  describe("422", () => {
    it("invalid_params with details when params do not match the skill's schema", async () => {
      const error = expectError(
        await execute({ skill_id: "math.evaluate", params: {} }),
        422,
        "invalid_params",
      );
      expect(expectDetails(error).map((d) => d.path)).toContain("expression");
    });

    it("invalid_params with the path of a wrongly typed param", async () => {
      const error = expectError(
        await execute({ skill_id: "message.send", params: { channel: "x", text: 5 } }),
        422,
        "invalid_params",
      );
      expect(expectDetails(error).map((d) => d.path)).toContain("text");
    });

    // Regression (audit 22, skills F1): a member the skill does not take was dropped, so a
    // misnamed param ran with its default: Tokyo asked for as `timezone` answered in UTC.
    it("invalid_params naming a param the skill does not take, which its schema says it refuses", async () => {
      const error = expectError(
        await execute({
          skill_id: "time.convert",
          params: { time: "2024-05-01T12:00:00Z", timezone: "Asia/Tokyo" },
        }),
        422,
        "invalid_params",
      );
      expect(expectDetails(error)).toEqual([
        { path: "timezone", message: expect.stringMatching(/^is not allowed here; /) },
      ]);
      const skill = await server.request("GET", "/v1/skills/time.convert", { key: full.secret });
      expect(bodyOf<{ params: Json }>(skill).params).toMatchObject({ additionalProperties: false });
    });

    // Regression (audit 25, noted): a misnamed param was told only that it is "not a member
    // this object takes", with no word of the one meant (`to` for `to_timezone`).
    it("invalid_params naming the param a misnamed one meant, or the few it takes when none is close", async () => {
      const time = { time: "2024-05-01T12:00:00Z" };
      const to = expectError(
        await execute({ skill_id: "time.convert", params: { ...time, to: "Asia/Tokyo" } }),
        422,
        "invalid_params",
      );
      expect(to.message).toBe('to: is not allowed here; did you mean "to_timezone"?');
      expect(expectDetails(to)).toEqual([
        { path: "to", message: 'is not allowed here; did you mean "to_timezone"?' },
      ]);
      // A required param sent misspelt is also told where it is missing.
      const typo = expectError(
        await execute({ skill_id: "math.evaluate", params: { expresion: "1+1" } }),
        422,
        "invalid_params",
      );
      expect(expectDetails(typo)).toEqual([
        {
          path: "expression",
          message: 'is required (a string); "expresion" is not a member: did you mean "expression"?',
        },
        { path: "expresion", message: 'is not allowed here; did you mean "expression"?' },
      ]);
      // Nothing close: no guess, but the few names it takes.
      const unrelated = expectError(
        await execute({ skill_id: "time.convert", params: { ...time, banana: 1 } }),
        422,
        "invalid_params",
      );
      expect(expectDetails(unrelated)).toEqual([
        {
          path: "banana",
          message: 'is not allowed here; this object takes "time", "from_timezone", "to_timezone", "format"',
        },
      ]);
      expect(unrelated.message).not.toContain("did you mean");
    });

    // Regression (audit 27, finding 2): a param taking a string or a number (zod's union) was
    // told only "Invalid input": not that it is required, nor what it takes.
    it("invalid_params saying what a string-or-number param takes, and the name a misnamed one meant", async () => {
      const cases: [Record<string, unknown>, string, string, string][] = [
        [{ to_timezone: "UTC" }, "time.convert", "time", "is required (a string or a number)"],
        [{ time: true }, "time.convert", "time", "must be a string or a number, not a boolean"],
        [{}, "time.diff", "start", "is required (a string or a number)"],
        [{ start: "2024-01-01", end: [1] }, "time.diff", "end", "must be a string or a number, not an array"],
      ];
      for (const [params, skill, path, message] of cases) {
        const error = expectError(await execute({ skill_id: skill, params }), 422, "invalid_params");
        expect(error.message).toBe(`${path}: ${message}`);
        expect(expectDetails(error)[0]).toEqual({ path, message });
      }
      const misnamed = expectError(
        await execute({ skill_id: "time.convert", params: { tme: "now" } }),
        422,
        "invalid_params",
      );
      expect(misnamed.message).toBe(
        'time: is required (a string or a number); "tme" is not a member: did you mean "time"?',
      );
    });

    // Regression (audit 25, noted): a request member under another name is dropped, and the
    // refusal only said the right one was missing (`skill` for `skill_id`).
    it("invalid_request naming the field a body sent under another name", async () => {
      const error = expectError(
        await execute({ skill: "math.evaluate", params: { expression: "1+1" } }),
        400,
        "invalid_request",
      );
      expect(expectDetails(error)).toEqual([
        {
          path: "skill_id",
          message: 'is required (a string); "skill" is not a member: did you mean "skill_id"?',
        },
      ]);
      const unrelated = expectError(await execute({ banana: "x", params: {} }), 400, "invalid_request");
      expect(unrelated.message).toBe("skill_id: is required (a string)");
    });

    it("idempotency_key_reused when the same key comes with another body", async () => {
      const headers = { "idempotency-key": "reused-1" };
      const first = await execute({ skill_id: "math.evaluate", params: { expression: "1+1" } }, headers);
      expect(first.status, first.text).toBe(200);
      expectError(
        await execute({ skill_id: "math.evaluate", params: { expression: "2+2" } }, headers),
        422,
        "idempotency_key_reused",
      );
    });
  });
});
