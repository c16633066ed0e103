import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  dropNamespace,
  scaleOutServices,
  skipWithoutServices,
  uniqueNamespace,
} from "../support/scale-out-services.js";
import {
  type ApiResponse,
  awayFromMinuteBoundary,
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  expectError,
  readEventStream,
  serverErrors,
  startServer,
  type TestServer,
} from "./harness.js";

const TERMINAL = ["completed", "failed", "timed_out", "cancelled"];

// Issue 8: replicas of `skillport serve` on one PostgreSQL and one Redis behave as one
// service. Three real server processes, one fresh database and Redis key prefix.
const services = scaleOutServices();
describe("contract: three replicas on PostgreSQL + Redis", { timeout: 120_000 }, () => {
  if (!services) {
    skipWithoutServices("the multi-replica test");
    return;
  }
  const namespace = uniqueNamespace();
  let dropDatabase: () => Promise<void> = async () => {};
  let env: Record<string, string>;
  let replicas: TestServer[] = [];
  let roomy: CreatedKey;
  const killed = new Set<TestServer>();

  const start = () =>
    startServer({
      env: {
        ...env,
        // Beats of 250 ms: a dead replica's executions are taken over within seconds.
        SKILLPORT_HEARTBEAT_MS: "250",
        SKILLPORT_ASYNC_CONCURRENCY: "4",
      },
    });

  beforeAll(async () => {
    const database = await createTestDatabase(services);
    dropDatabase = database.drop;
    env = {
      SKILLPORT_DATABASE_URL: database.databaseUrl,
      SKILLPORT_REDIS_URL: services.redisUrl,
      SKILLPORT_REDIS_KEY_PREFIX: namespace.keyPrefix,
    };
    // Started at once: the migrations must be applied exactly once among them.
    replicas = await Promise.all([start(), start(), start()]);
    roomy = await replica(0).createRoomyKey({ name: "replicas" });
  });

  afterAll(async () => {
    const errors = replicas.filter((r) => !killed.has(r)).flatMap((r) => serverErrors(r));
    await Promise.all(replicas.map((replica) => replica.stop()));
    await dropDatabase();
    await dropNamespace(services, namespace);
    expect(errors).toEqual([]);
  });

  const replica = (i: number): TestServer => {
    const server = replicas[i % replicas.length];
    if (!server) throw new Error("no replica");
    return server;
  };
  const discover = (server: TestServer, secret: string) =>
    server.request("POST", "/v1/discover", { key: secret, json: { query: "send a message" } });
  const executeAsync = (server: TestServer, params: Record<string, unknown>) =>
    server.request("POST", "/v1/execute", {
      key: roomy.secret,
      json: { skill_id: "util.wait", params, async: true, timeout_ms: 120_000 },
    });
  const idOf = (res: ApiResponse) => {
    expect(res.status, res.text).toBe(202);
    return bodyOf<ExecutionRecord>(res).id;
  };
  const getRecord = async (server: TestServer, id: string, wait = 0) => {
    const res = await server.request("GET", `/v1/executions/${id}${wait ? `?wait=${wait}` : ""}`, {
      key: roomy.secret,
    });
    expect(res.status, res.text).toBe(200);
    return bodyOf<ExecutionRecord>(res);
  };

  it("a free key gets exactly 60 of 100 concurrent requests spread across the three", async () => {
    const key = await replica(0).createKey({ name: "shared-limit" });
    await awayFromMinuteBoundary(30);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => discover(replica(i), key.secret)),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(60);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(40);
    for (const res of responses.filter((r) => r.status === 429)) expectError(res, 429, "rate_limit_exceeded");
  });

  it("a key revoked through one replica is refused by every replica on its next request", async () => {
    const key = await replica(0).createKey({ name: "revoked-everywhere" });
    for (const server of replicas) expect((await discover(server, key.secret)).status).toBe(200);
    await replica(1).revokeKey(key.id);
    for (const server of replicas) expectError(await discover(server, key.secret), 401, "invalid_api_key");
  });

  it("long polls and event streams on one replica see an execution another replica completes", async () => {
    const id = idOf(await executeAsync(replica(0), { ms: 1_500 }));
    const [polled, stream] = await Promise.all([
      getRecord(replica(1), id, 30),
      readEventStream(replica(2).baseUrl, `/v1/executions/${id}/events`, roomy.secret),
    ]);
    expect(polled).toMatchObject({ id, status: "completed", result: { waited_ms: 1_500 } });
    const last = stream.events.at(-1);
    expect(last?.event).toBe("status");
    expect(JSON.parse(last?.data ?? "{}")).toEqual(polled);
  });

  // Audit 25 #3: a sync run shared none of its events, so /events on another replica had
  // its statuses (by polling the store) and none of its progress.
  it("an event stream on one replica carries the progress of a sync execution another replica runs", async () => {
    const key = await replica(0).createRoomyKey({ name: "sync-progress", owner: "sync-progress" });
    const ran = replica(0).request("POST", "/v1/execute", {
      key: key.secret,
      json: { skill_id: "util.wait", params: { ms: 3_000 } },
    });
    const running = await eventually(async () => {
      const res = await replica(1).request("GET", "/v1/executions?status=running", { key: key.secret });
      return bodyOf<{ data: ExecutionRecord[] }>(res).data[0];
    });
    const stream = await readEventStream(
      replica(1).baseUrl,
      `/v1/executions/${running.id}/events`,
      key.secret,
    );
    const record = bodyOf<ExecutionRecord>(await ran);
    expect(record).toMatchObject({ id: running.id, status: "completed" });
    const kinds = stream.events.map((e) => e.event);
    expect(kinds.filter((kind) => kind === "progress").length, kinds.join(",")).toBeGreaterThanOrEqual(2);
    expect(kinds.at(-1)).toBe("status");
    expect(JSON.parse(stream.events.at(-1)?.data ?? "{}")).toEqual(record);
  });

  it("a cancel sent to another replica stops the skill on the replica running it", async () => {
    const id = idOf(await executeAsync(replica(0), { ms: 100_000 }));
    await eventually(async () => ((await getRecord(replica(0), id)).status === "running" ? true : undefined));
    const cancel = await replica(1).request("POST", `/v1/executions/${id}/cancel`, { key: roomy.secret });
    expect(cancel.status, cancel.text).toBe(200);
    const cancelled = bodyOf<ExecutionRecord>(cancel);
    expect(cancelled.status).toBe("cancelled");
    // The replica that ran it no longer does (it would for 100 s if only the record changed).
    await eventually(async () => {
      const ready = await replica(0).request("GET", "/readyz");
      return bodyOf<{ executions: { running: number } }>(ready).executions.running === 0 ? true : undefined;
    });
    for (const server of replicas) expect(await getRecord(server, id)).toEqual(cancelled);
  });

  it("a replica killed mid-run: its executions end correctly, seen from another; none lost or duplicated", async () => {
    const victim = replica(0);
    const witness = replica(1);
    // The first four start on the victim at once (its concurrency is 4). The next four wait
    // in its queue, where replicas with free slots take them: the queue is shared.
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(idOf(await executeAsync(victim, { ms: 90_000 + i })));
    const onVictim = ids.slice(0, 4);
    const takenByOthers = ids.slice(4);
    await eventually(async () => {
      const records = await Promise.all(ids.map((id) => getRecord(witness, id)));
      return records.every((r) => r.status === "running") ? true : undefined;
    }, 30_000);

    killed.add(victim);
    victim.child.kill("SIGKILL");
    await victim.exited;

    // Cut off mid-run by the kill: another replica notices and ends them interrupted (util.wait
    // is not retried); the witness's long polls return as soon as they are terminal.
    for (const record of await Promise.all(onVictim.map((id) => getRecord(witness, id, 60)))) {
      expect(record).toMatchObject({ status: "failed", error: { code: "execution_interrupted" } });
    }
    // The others still run on the surviving replicas: cancelling through the witness ends them.
    for (const id of takenByOthers) {
      expect(await getRecord(witness, id)).toMatchObject({ status: "running" });
      const cancel = await witness.request("POST", `/v1/executions/${id}/cancel`, { key: roomy.secret });
      expect(bodyOf<ExecutionRecord>(cancel).status, cancel.text).toBe("cancelled");
    }

    // Every record exists exactly once, terminal, listed by a surviving replica.
    const listed: ExecutionRecord[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `skill_id=util.wait&limit=100${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await replica(2).request("GET", `/v1/executions?${query}`, { key: roomy.secret });
      const page = bodyOf<{ data: ExecutionRecord[]; next_cursor: string | null }>(res);
      listed.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    const mine = listed.filter((record) => ids.includes(record.id));
    expect(mine.map((record) => record.id).sort()).toEqual([...ids].sort());
    for (const record of mine) expect(TERMINAL).toContain(record.status);
  });
});
