import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/core/keys/secret.js";
import { type FreezableProxy, startFreezableProxy } from "../support/freezable-proxy.js";
import { createTestDatabase, scaleOutServices, skipWithoutServices } from "../support/scale-out-services.js";
import {
  type ApiResponse,
  bodyOf,
  type CreatedKey,
  expectError,
  freePort,
  runCli,
  startServer,
  type TestServer,
} from "./harness.js";

const services = scaleOutServices();

/** A PostgreSQL `Authentication` message (`R`) of `kind` (10: SASL, 11: SASL continue). */
function authentication(kind: number, data: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.write("R", 0);
  head.writeInt32BE(8 + data.length, 1);
  head.writeInt32BE(kind, 5);
  return Buffer.concat([head, data]);
}

/**
 * The server gives PostgreSQL 5 s to connect or answer (src/store/postgres/index.ts) and
 * /readyz 1 s. Without a deadline the requests below wait for as long as the proxy stays
 * frozen: each is given BOUND_MS, far above the deadline on a loaded 2-core machine and
 * far below "never".
 */
const BOUND_MS = 30_000;

/** The request's answer and how long it took; status 0 when it got none within BOUND_MS. */
async function bounded(call: (signal: AbortSignal) => Promise<ApiResponse>) {
  const started = performance.now();
  const res = await call(AbortSignal.timeout(BOUND_MS)).catch(() => undefined);
  return { res, status: res?.status ?? 0, ms: performance.now() - started };
}

/**
 * A PostgreSQL that stops answering without closing anything (a frozen server, a dead TCP
 * path) is an outage like a stopped one (docs/deploy.md): requests get the 503 with
 * Retry-After within a few seconds, /readyz says the store is down, and a SIGTERM ends
 * the process within its deadline. Simulated by a proxy in front of the shared server
 * that goes silent for this server alone.
 */
describe("contract: a PostgreSQL that stops answering", { timeout: 180_000 }, () => {
  if (!services) {
    skipWithoutServices("the hung-PostgreSQL contract test");
    return;
  }
  let proxy: FreezableProxy;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let key: CreatedKey;

  beforeAll(async () => {
    if (!services) return;
    database = await createTestDatabase(services);
    proxy = await startFreezableProxy(database.databaseUrl);
    server = await startServer({
      env: {
        SKILLPORT_DATABASE_URL: proxy.via(database.databaseUrl),
        SKILLPORT_REDIS_URL: services.redisUrl,
        SKILLPORT_REDIS_KEY_PREFIX: `hung-pg-${Date.now()}:`,
        SKILLPORT_SHUTDOWN_TIMEOUT_MS: "2000",
      },
    });
    key = await server.createRoomyKey({ name: "hung-postgres" });
    expect((await server.request("GET", "/v1/executions", { key: key.secret })).status).toBe(200);
    proxy.freeze();
  });
  afterAll(async () => {
    proxy?.thaw();
    await server?.stop().catch(() => undefined);
    await proxy?.close();
    await database?.drop();
  });

  it("answers a request that needs the store 503 service_unavailable with Retry-After, within its deadline", async () => {
    const { res, status, ms } = await bounded((signal) =>
      server.request("GET", "/v1/executions/exec_0000000000000000000000", { key: key.secret, signal }),
    );
    expect(status, `no answer within ${BOUND_MS} ms`).toBe(503);
    if (!res) return;
    expectError(res, 503, "service_unavailable");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  // contract.md, "API keys": the checksum refuses "a malformed or mistyped key ... without a
  // store lookup". With the store silent, a lookup could only end in the 503 after its deadline.
  it("refuses a mistyped key 401 at once while the store cannot answer, where a well-formed unknown key needs it", async () => {
    const last = key.secret.at(-1);
    const mistyped = `${key.secret.slice(0, -1)}${last === "A" ? "B" : "A"}`;
    const refused = await bounded((signal) =>
      server.request("GET", "/v1/skills?limit=1", { key: mistyped, signal }),
    );
    expect(refused.status, `no answer within ${BOUND_MS} ms`).toBe(401);
    expectError(refused.res as ApiResponse, 401, "invalid_api_key");
    expect(refused.ms).toBeLessThan(2_000);
    const looked = await bounded((signal) =>
      server.request("GET", "/v1/skills?limit=1", { key: generateSecret("production"), signal }),
    );
    expect(looked.status, `no answer within ${BOUND_MS} ms`).toBe(503);
  });

  it("answers /readyz 503 with the store down", async () => {
    const { res, status } = await bounded((signal) => server.request("GET", "/readyz", { signal }));
    expect(status, `no answer within ${BOUND_MS} ms`).toBe(503);
    expect(bodyOf<{ store: string }>(res as ApiResponse).store).toBe("down");
  });

  it("ends on SIGTERM within its shutdown deadline, a request in flight on the hung store", async () => {
    const inFlight = bounded((signal) =>
      server.request("GET", "/v1/executions", { key: key.secret, signal }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    server.child.kill("SIGTERM");
    const exited = await Promise.race([
      server.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), BOUND_MS)),
    ]);
    expect(exited, `still running ${BOUND_MS} ms after SIGTERM`).toBe(true);
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
    await inFlight;
  });
});

/**
 * Audit 21 #5: a PostgreSQL out of reach at start-up is named, as Redis is ("Cannot connect
 * to Redis at SKILLPORT_REDIS_URL"), so that an operator with both on one host knows which
 * is down; the URL's password is never printed. A silent one (a frozen server) fails the
 * start within the connection deadline instead of hanging it.
 */
describe("contract: a PostgreSQL out of reach at start-up", { timeout: 120_000 }, () => {
  if (!services) {
    skipWithoutServices("the unreachable-PostgreSQL start-up test");
    return;
  }
  const password = "S3cretPW-not-printed";

  it("serve and keys list say which setting failed, without the password, when PostgreSQL refuses", async () => {
    const env = {
      SKILLPORT_DATABASE_URL: `postgres://skillport:${password}@127.0.0.1:${await freePort()}/x`,
      SKILLPORT_REDIS_URL: services.redisUrl,
      SKILLPORT_PORT: String(await freePort()),
    };
    for (const args of [["serve"], ["keys", "list"]]) {
      const { code, stdout, stderr } = await runCli(args, env);
      expect(code, args.join(" ")).toBe(1);
      expect(stderr, args.join(" ")).toMatch(
        /Cannot connect to PostgreSQL at SKILLPORT_DATABASE_URL \(.*ECONNREFUSED/,
      );
      expect(stdout + stderr).not.toContain(password);
    }
  });

  // Audit 26 #5: the driver's "SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a
  // string" came out bare, naming neither the setting nor the missing password.
  it("serve and keys list say the URL lacks the password the server asks for", async () => {
    // Asks for SCRAM-SHA-256, as a PostgreSQL with scram-sha-256 in pg_hba.conf does, and
    // answers the client's first SASL message; the driver fails there without a password.
    const sockets = new Set<Socket>();
    const asking = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      let messages = 0;
      socket.on("data", () => {
        const reply =
          messages++ === 0
            ? authentication(10, Buffer.from("SCRAM-SHA-256\0\0"))
            : authentication(11, Buffer.from("r=nonce,s=c2FsdA==,i=4096"));
        socket.write(reply);
      });
    });
    await new Promise<void>((resolve) => asking.listen(0, "127.0.0.1", resolve));
    const { port } = asking.address() as AddressInfo;
    try {
      for (const args of [["serve"], ["keys", "list"]]) {
        const { code, stderr } = await runCli(args, {
          SKILLPORT_DATABASE_URL: `postgres://skillport@127.0.0.1:${port}/x`,
          SKILLPORT_REDIS_URL: services.redisUrl,
          SKILLPORT_PORT: String(await freePort()),
        });
        expect(code, args.join(" ")).toBe(1);
        expect(stderr, args.join(" ")).toContain(
          "Cannot connect to PostgreSQL at SKILLPORT_DATABASE_URL (the server asks for a password and SKILLPORT_DATABASE_URL has none",
        );
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      asking.close();
    }
  });

  it("serve fails within the connection deadline when PostgreSQL does not answer", async () => {
    // Accepts connections and never says a word, as a frozen server's kernel does.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const started = performance.now();
      const { code, stderr } = await runCli(["serve"], {
        SKILLPORT_DATABASE_URL: `postgres://skillport:${password}@127.0.0.1:${port}/x`,
        SKILLPORT_REDIS_URL: services.redisUrl,
        SKILLPORT_PORT: String(await freePort()),
      });
      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(/Cannot connect to PostgreSQL at SKILLPORT_DATABASE_URL \(.*timeout/);
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
