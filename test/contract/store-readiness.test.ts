import { copyFileSync, renameSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { damageTable } from "../store/support/damage-table.js";
import {
  bodyOf,
  createKey,
  type ExecutionRecord,
  eventually,
  startServer,
  type TestServer,
} from "./harness.js";

// Audit 18, finding 1: a database file deleted or replaced while the server runs left
// `/readyz` at 200 "store": "ok", while everything written from then on went to the old,
// unlinked file (lost at the next start) or, after a replace, broke the new file. The
// probe now tells a load balancer (and an operator: an error line) that this replica
// cannot serve.

interface Readiness {
  status: string;
  store: string;
}

describe("contract: readiness when the database file goes away or is damaged", { timeout: 60_000 }, () => {
  const servers: TestServer[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const server of servers.reverse()) await server.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const start = async () => {
    const server = await startServer();
    servers.push(server);
    const ready = await server.request("GET", "/readyz");
    expect(ready.status, ready.text).toBe(200);
    expect(bodyOf<Readiness>(ready).store).toBe("ok");
    return server;
  };

  it("answers /readyz 503 store down once the database file is deleted, and /healthz 200 still", async () => {
    const server = await start();
    for (const suffix of ["", "-wal", "-shm"]) {
      rmSync(join(server.dataDir, `skillport.db${suffix}`), { force: true });
    }
    const ready = await server.request("GET", "/readyz");
    expect(ready.status, ready.text).toBe(503);
    expect(bodyOf<Readiness>(ready)).toMatchObject({ status: "unavailable", store: "down" });
    // Liveness stays: a restart would open a new, empty store at the path, and the process
    // still holds the deleted files, the only copy of their records (docs/deploy.md).
    expect((await server.request("GET", "/healthz")).status).toBe(200);
    // Logged once, as an error (the line reaches the test a moment after the answer).
    await eventually(async () =>
      server.logs().includes("the database file was deleted or replaced while open") ? true : undefined,
    );
  });

  // Audit 27, finding 3: only a probe noticed; execute requests were still answered 200
  // with records written into the deleted file.
  it("answers an execute 503 service_unavailable once the database file is deleted, with no probe first", async () => {
    const server = await start();
    const key = await server.createRoomyKey({ name: "deleted-file" });
    rmSync(join(server.dataDir, "skillport.db"));
    const res = await server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "math.evaluate", params: { expression: "1 + 1" } },
    });
    expect(res.status, res.text).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(bodyOf<{ error: { code: string } }>(res).error.code).toBe("service_unavailable");
  });

  // Audit 27, finding 2: with skillport.db-wal deleted, every record was committed into the
  // unlinked WAL and answered 200, /readyz stayed ready, nothing was logged, and a restart
  // after a kill found none of them.
  it("keeps what was answered when the WAL is deleted, then answers 503 and not ready, with one error line", async () => {
    const server = await start();
    const key = await server.createRoomyKey({ name: "deleted-wal" });
    const execute = (expression: string) =>
      server.request("POST", "/v1/execute", {
        key: key.secret,
        json: { skill_id: "math.evaluate", params: { expression } },
      });
    const answered: ExecutionRecord[] = [];
    const first = await execute("1 + 1");
    expect(first.status, first.text).toBe(200);
    answered.push(bodyOf<ExecutionRecord>(first));
    rmSync(join(server.dataDir, "skillport.db-wal"));

    // The request whose commit meets the deleted WAL is answered as stored only if its
    // record was written back into the database file; every later one is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await execute(`${i} * 7`);
      statuses.push(res.status);
      if (res.status === 200) answered.push(bodyOf<ExecutionRecord>(res));
      else {
        expect(res.status, res.text).toBe(503);
        expect(res.headers.get("retry-after")).toBe("5");
        expect(bodyOf<{ error: { code: string } }>(res).error.code).toBe("service_unavailable");
      }
    }
    expect(statuses.slice(1)).toEqual([503, 503, 503]);
    const ready = await server.request("GET", "/readyz");
    expect(ready.status, ready.text).toBe(503);
    expect(bodyOf<Readiness>(ready).store).toBe("down");
    const lines = await eventually(async () => {
      const found = server
        .logs()
        .split("\n")
        .filter((line) => line.includes("WAL file was deleted while open"));
      return found.length > 0 ? found : undefined;
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ level: 50, written_back: true });

    // A crash now loses nothing that was answered.
    server.child.kill("SIGKILL");
    await server.exited;
    const next = await startServer({ dataDir: server.dataDir });
    servers.push(next);
    for (const record of answered) {
      const res = await next.request("GET", `/v1/executions/${record.id}`, { key: key.secret });
      expect(res.status, res.text).toBe(200);
      expect(bodyOf<ExecutionRecord>(res)).toMatchObject({ id: record.id, status: "completed" });
    }
  });

  // A stop after the database file was deleted retried the outcomes the store refused until
  // the shutdown deadline (10 s by default, a warning every 250 ms), though the store takes
  // no write again before a restart.
  it("stops at once, not at its deadline, with an outcome refused once the database file is deleted, logged once", async () => {
    // A deadline far past this test's timeout: only a stop that gives up at once ends in time.
    const server = await startServer({ env: { SKILLPORT_SHUTDOWN_TIMEOUT_MS: "600000" } });
    servers.push(server);
    const key = await server.createRoomyKey({ name: "deleted-file-stop" });
    const inFlight = server.request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 500 } },
    });
    const running = await eventually(async () => {
      const res = await server.request("GET", "/v1/executions?status=running", { key: key.secret });
      return bodyOf<{ data: ExecutionRecord[] }>(res).data[0];
    });
    rmSync(join(server.dataDir, "skillport.db"));
    const res = await inFlight;
    expect(res.status, res.text).toBe(503);
    expect(bodyOf<{ error: { message: string } }>(res).error.message).toContain(
      `The execution ${running.id} ran and ended completed`,
    );
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const lost = server
      .logs()
      .split("\n")
      .filter((line) => line.includes(running.id) && line.includes("it is lost"));
    expect(lost).toHaveLength(1);
    expect(JSON.parse(lost[0] ?? "")).toMatchObject({
      level: 50,
      execution_id: running.id,
      skill_id: "util.wait",
      status: "completed",
    });
  });

  it("answers /readyz 503 store down once another file replaces the database file", async () => {
    const server = await start();
    // Another database (a copy of this one, as a restore from a backup would put there).
    const elsewhere = await mkdtemp(join(tmpdir(), "skillport-replacement-"));
    dirs.push(elsewhere);
    copyFileSync(join(server.dataDir, "skillport.db"), join(elsewhere, "skillport.db"));
    renameSync(join(elsewhere, "skillport.db"), join(server.dataDir, "skillport.db"));
    const ready = await server.request("GET", "/readyz");
    expect(ready.status, ready.text).toBe(503);
    expect(bodyOf<Readiness>(ready).store).toBe("down");
  });

  it("answers /readyz 503 store down while a damaged table fails every request, and logs the file as an error", async () => {
    // Audit 22, operations #4: every /v1 request was 503 (the keys table damaged) while
    // /readyz answered 200 "store": "ok", so a load balancer kept the replica in rotation.
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-damaged-"));
    dirs.push(dataDir);
    const key = await createKey(dataDir);
    const file = join(dataDir, "skillport.db");
    damageTable(file, "api_keys");
    const server = await startServer({ dataDir });
    servers.push(server);
    const answered = await server.request("GET", "/v1/skills", { key: key.secret });
    expect(answered.status, answered.text).toBe(503);
    for (let probe = 0; probe < 2; probe++) {
      const ready = await server.request("GET", "/readyz");
      expect(ready.status, ready.text).toBe(503);
      expect(bodyOf<Readiness>(ready)).toMatchObject({ status: "unavailable", store: "down" });
    }
    const damaged = await eventually(async () =>
      server
        .logs()
        .split("\n")
        .find((line) => line.includes("the database file is damaged")),
    );
    expect(JSON.parse(damaged)).toMatchObject({ level: 50 /* error */, path: file, code: "SQLITE_CORRUPT" });
  });
});
