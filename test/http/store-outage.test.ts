import { accessSync, closeSync, constants, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type CallToolResult, CreateTaskResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import type { ExecutionStore, KeyStore, Store } from "../../src/core/ports.js";
import { Skillport } from "../../src/core/skillport.js";
import { buildHttpServer } from "../../src/http/server.js";
import type { createLogger } from "../../src/logging.js";
import { EmbeddedBackend } from "../../src/mcp/embedded-backend.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { openRedisLimiter } from "../../src/store/redis/index.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { startTcpProxy } from "../contract/tcp-proxy.js";
import { makeCore } from "../core/make-core.js";
import { echo } from "../core/test-skills.js";
import { inMemoryMcpClient } from "../mcp/in-memory-client.js";
import { capturedLog } from "../support/captured-log.js";
import {
  dropNamespace,
  type ScaleOutServices,
  scaleOutServices,
  uniqueNamespace,
} from "../support/scale-out-services.js";
import { testHttpServerOptions } from "./http-server-options.js";

/**
 * The store as the core sees it, except that reading executions throws `failure.error`
 * while it is set: a store outage (or a bug) met by a request after admission.
 */
function failingReads(failure: { error?: unknown }) {
  return (store: Store): Store => {
    const executions = new Proxy(store.executions, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (!["get", "list", "listResultSizes"].includes(String(property)) || typeof value !== "function") {
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: unknown[]) => {
          if (failure.error !== undefined) throw failure.error;
          return value.apply(target, args);
        };
      },
    }) as ExecutionStore;
    return { ...store, executions };
  };
}

/** The store, except that storing a terminal record throws `failure.error` while it is set. */
function failingOutcomeSaves(failure: { error?: unknown }) {
  return (store: Store): Store => {
    const { executions } = store;
    const save: ExecutionStore["save"] = async (execution) => {
      const ended = !["queued", "running"].includes(execution.record.status);
      if (ended && failure.error !== undefined) throw failure.error;
      return executions.save(execution);
    };
    return { ...store, executions: Object.assign(Object.create(executions) as ExecutionStore, { save }) };
  };
}

/**
 * The store, except that looking a key up by its secret throws `failure.error` while it is
 * set: stdio's MCP server authenticates its key afresh on every request.
 */
function failingKeyLookups(failure: { error?: unknown }) {
  return (store: Store): Store => {
    const { keys } = store;
    const findByHash: KeyStore["findByHash"] = async (hash) => {
      if (failure.error !== undefined) throw failure.error;
      return keys.findByHash(hash);
    };
    return { ...store, keys: Object.assign(Object.create(keys) as KeyStore, { findByHash }) };
  };
}

/** A real SQLite outage error: a write to a database opened read-only (SQLITE_READONLY). */
function readOnlyError(dir: string): unknown {
  const db = new Database(join(dir, "skillport.db"), { readonly: true });
  try {
    db.prepare("delete from executions").run();
  } catch (err) {
    return err;
  } finally {
    db.close();
  }
  throw new Error("the read-only write succeeded");
}

// On SQLite: the outage is SQLite's own error, from its file, which its store's isOutage
// recognises (the in-memory store never has one).
describe("a store outage on every surface", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const serve = (skillport: Skillport, logger: ReturnType<typeof createLogger>) => {
    const server = buildHttpServer(skillport, testHttpServerOptions(logger));
    cleanups.push(() => server.close());
    server.open();
    return server;
  };

  const setUp = async () => {
    const failure: { error?: unknown } = {};
    const log = capturedLog();
    const core = await makeCore([echo], {
      store: "sqlite",
      wrapStore: failingReads(failure),
      logger: log.logger,
    });
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey();
    const server = serve(core.skillport, log.logger);
    const listExecutions = () =>
      server.app.inject({
        method: "GET",
        url: "/v1/executions",
        headers: { authorization: `Bearer ${secret}` },
      });
    return { core, failure, log, listExecutions };
  };

  it("answers REST 503 service_unavailable with Retry-After, not 500, when the store cannot serve", async () => {
    const { core, failure, log, listExecutions } = await setUp();
    expect((await listExecutions()).statusCode).toBe(200);
    failure.error = readOnlyError(core.dir);
    const res = await listExecutions();
    expect(res.statusCode).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    const { error } = res.json() as { error: Record<string, unknown> };
    expect(error).toMatchObject({
      code: "service_unavailable",
      message: "The store is unavailable; retry later.",
      retry_after: 5,
    });
    // The driver's words (which may name paths or addresses) stay in the log.
    expect(res.body).not.toContain("readonly");
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 40, err: expect.objectContaining({ code: "SQLITE_READONLY" }) }),
    );
    failure.error = undefined;
    expect((await listExecutions()).statusCode).toBe(200);
  });

  it("logs an outage once per ten seconds with the count answered since, not once per request", async () => {
    const { core, failure, log, listExecutions } = await setUp();
    failure.error = readOnlyError(core.dir);
    const outageLines = () =>
      log.lines.filter((line) => String(line.msg).startsWith("the store is unavailable"));
    for (let i = 0; i < 4; i++) expect((await listExecutions()).statusCode).toBe(503);
    expect(outageLines()).toHaveLength(1);
    if (!(core.clock instanceof ManualClock)) throw new Error("makeCore's default clock is a ManualClock");
    core.clock.advance(10_000);
    expect((await listExecutions()).statusCode).toBe(503);
    expect(outageLines()).toHaveLength(2);
    expect(outageLines()[1]).toMatchObject({ answered_since_last_line: 3 });
  });

  it("says that a sync execution ran when the store refused its outcome, and stores the outcome once it can", async () => {
    const failure: { error?: unknown } = {};
    const log = capturedLog();
    const core = await makeCore([echo], {
      store: "sqlite",
      wrapStore: failingOutcomeSaves(failure),
      logger: log.logger,
    });
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey();
    const server = serve(core.skillport, log.logger);
    failure.error = readOnlyError(core.dir);
    const res = await server.app.inject({
      method: "POST",
      url: "/v1/execute",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      payload: { skill_id: "test.echo", params: { text: "hi" } },
    });
    expect(res.statusCode).toBe(503);
    const { error } = res.json() as { error: { code: string; message: string; retry_after: number } };
    expect(error.code).toBe("service_unavailable");
    const id = /The execution (exec_\w+) ran and ended completed/.exec(error.message)?.[1];
    expect(id, error.message).toBeDefined();
    expect(error.message).toContain("Repeating the request runs the skill again");
    // Logged as every outage is, with the driver's error.
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        msg: "the store is unavailable: answered service_unavailable",
        err: expect.objectContaining({ code: "SQLITE_READONLY" }),
      }),
    );
    failure.error = undefined;
    // The runner stores it again (first retry after a second); then it is there, completed.
    await vi.waitFor(
      async () => {
        const record = await server.app.inject({
          method: "GET",
          url: `/v1/executions/${id}`,
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(record.json()).toMatchObject({ id, status: "completed" });
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  it("still answers REST 500 internal_error for an error that is not an outage", async () => {
    const { failure, log, listExecutions } = await setUp();
    failure.error = new TypeError("Cannot read properties of undefined (reading 'id')");
    const res = await listExecutions();
    expect(res.statusCode).toBe(500);
    expect(res.headers["retry-after"]).toBeUndefined();
    const { error } = res.json() as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: "internal_error", message: "Internal error." });
    // contract.md, "Errors": a bug is "logged with the request id", the one the client got.
    expect(error.request_id).toBe(res.headers["x-request-id"]);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 50, msg: "request failed", reqId: error.request_id }),
    );
  });

  it("answers an MCP tool call that meets a store outage with service_unavailable and when to retry", async () => {
    const { core, failure } = await setUp();
    const key = await core.keyFor();
    const backend = new EmbeddedBackend(core.skillport, async () => key);
    const client = await inMemoryMcpClient(backend, { logger: core.skillport.logger });
    cleanups.push(() => client.close());
    failure.error = readOnlyError(core.dir);
    const result = (await client.callTool({
      name: "get_execution",
      arguments: { id: "exec_0000000000000000000000" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.["skillport/error"]).toMatchObject({ code: "service_unavailable", retry_after: 5 });
  });

  // Regression (audit 24, code #8): tools/list and a task's start answered a store outage
  // or a bug with -32600 (Invalid Request), the client's fault; tasks/get with the driver's words.
  it("answers MCP requests that have no isError result, met by a store outage or a bug, with a JSON-RPC internal error (-32603)", async () => {
    const failure: { error?: unknown } = {};
    const log = capturedLog();
    const core = await makeCore([echo], {
      store: "sqlite",
      wrapStore: failingKeyLookups(failure),
      logger: log.logger,
    });
    cleanups.push(core.cleanup);
    const { secret } = await core.createKey();
    // As `skillport mcp` makes it: the key authenticated afresh for each request.
    const backend = new EmbeddedBackend(core.skillport, () => core.skillport.keys.authenticate(secret));
    const client = await inMemoryMcpClient(backend, { logger: log.logger });
    cleanups.push(() => client.close());
    const startTask = () =>
      client.request(
        {
          method: "tools/call",
          params: { name: "test_echo", arguments: { text: "hi" }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
    const { task } = await startTask();

    failure.error = readOnlyError(core.dir);
    const outage = {
      code: ErrorCode.InternalError,
      message: expect.stringMatching(
        /service_unavailable: The store is unavailable; retry later\..*Retry after 5 s\./s,
      ),
      data: {
        code: "service_unavailable",
        message: "The store is unavailable; retry later.",
        retry_after: 5,
      },
    };
    await expect(client.listTools()).rejects.toMatchObject(outage);
    await expect(startTask()).rejects.toMatchObject(outage);
    // Not the driver's words (which may name paths), which the SDK would have sent.
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject(outage);

    failure.error = new TypeError("Cannot read properties of undefined (reading 'id')");
    const bug = {
      code: ErrorCode.InternalError,
      data: { code: "internal_error", message: "Internal error." },
    };
    await expect(client.listTools()).rejects.toMatchObject(bug);
    await expect(startTask()).rejects.toMatchObject(bug);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: 50, msg: "task failed to start" }));
  });

  const services = scaleOutServices();

  /** A server on a PostgreSQL store of a schema of its own, reached at `databaseUrl`. */
  const setUpPostgres = async (services: ScaleOutServices, databaseUrl = services.databaseUrl) => {
    const namespace = uniqueNamespace();
    cleanups.push(() => dropNamespace(services, namespace));
    const limiter = await openRedisLimiter({ redisUrl: services.redisUrl, keyPrefix: namespace.keyPrefix });
    const log = capturedLog();
    const store = await openPostgresStore({
      databaseUrl,
      schema: namespace.schema,
      limiter,
      poolSize: 2,
      logger: log.logger,
    });
    const skillport = new Skillport({ store, skills: [echo], logger: log.logger });
    cleanups.push(() => skillport.close());
    const { secret } = await skillport.keys.create({ name: "test", scope: "full-access" });
    const server = serve(skillport, log.logger);
    const listExecutions = () =>
      server.app.inject({
        method: "GET",
        url: "/v1/executions",
        headers: { authorization: `Bearer ${secret}` },
      });
    return { namespace, log, listExecutions };
  };

  it.skipIf(!services)("answers REST 503 service_unavailable while PostgreSQL is out of reach", async () => {
    if (!services) return;
    // PostgreSQL behind a proxy: closing it cuts every connection and refuses new ones.
    const target = new URL(services.databaseUrl);
    const proxy = await startTcpProxy(`http://${target.host}`);
    cleanups.push(() => proxy.close());
    const proxied = new URL(services.databaseUrl);
    proxied.port = new URL(proxy.baseUrl).port;
    const { listExecutions } = await setUpPostgres(services, proxied.toString());
    expect((await listExecutions()).statusCode).toBe(200);
    await proxy.close();
    const res = await listExecutions();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect((res.json() as { error: Record<string, unknown> }).error).toMatchObject({
      code: "service_unavailable",
      retry_after: 5,
    });
    expect(res.body).not.toContain("127.0.0.1");
  });

  // Left open in session 23: SQLite's damaged file answered 503, PostgreSQL's damaged data 500.
  it.skipIf(!services)(
    "answers REST 503 service_unavailable, not 500, when PostgreSQL finds its data damaged, and logs it at error once",
    async (ctx) => {
      if (!services) return;
      const { namespace, log, listExecutions } = await setUpPostgres(services);
      expect((await listExecutions()).statusCode).toBe(200);
      const admin = new pg.Client({ connectionString: services.databaseUrl });
      await admin.connect();
      cleanups.push(() => admin.end());
      // Real damage: the first page (the metapage) of an index of the executions table, which
      // every query of the table reads as it is planned. VACUUM FULL writes the index anew
      // past the server's buffer cache, so the server reads the page from the file.
      const table = `${pg.escapeIdentifier(namespace.schema)}.executions`;
      await admin.query(`vacuum full ${table}`);
      const { rows } = await admin.query<{ file: string }>(
        `select current_setting('data_directory') || '/' || pg_relation_filepath(indexrelid) as file
         from pg_index where indrelid = $1::regclass limit 1`,
        [table],
      );
      const file = rows[0]?.file ?? "";
      try {
        accessSync(file, constants.W_OK);
      } catch {
        // Only a test beside its server (as scripts/test-services.sh starts it, as root in CI) can damage it.
        ctx.skip();
      }
      const fd = openSync(file, "r+");
      writeSync(fd, Buffer.alloc(24, 0xff), 0, 24, 0);
      closeSync(fd);
      for (let i = 0; i < 3; i++) {
        const res = await listExecutions();
        expect(res.statusCode, res.body).toBe(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect((res.json() as { error: Record<string, unknown> }).error).toMatchObject({
          code: "service_unavailable",
          message: "The store is unavailable; retry later.",
          retry_after: 5,
        });
      }
      expect(log.lines.filter((line) => line.level === 50)).toEqual([
        expect.objectContaining({
          code: "XX001",
          reason: expect.stringMatching(/^invalid page in block 0 of relation/),
          msg: expect.stringMatching(/^PostgreSQL reports damaged data: answering service_unavailable/),
        }),
      ]);
    },
  );
});
