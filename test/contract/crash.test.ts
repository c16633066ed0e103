import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Database } from "../../src/store/sqlite/driver.js";
import {
  type ApiResponse,
  bodyOf,
  type CreatedKey,
  type ExecutionRecord,
  eventually,
  startServer,
  type TestServer,
} from "./harness.js";

// Issue 7, "Crashes": SIGKILL while synchronous and asynchronous executions run, then a
// restart on the same data dir. No answered record is lost, none stays non-terminal,
// queued work resumes, interrupted work ends execution_interrupted, idempotency entries
// still hold, and the SQLite file passes its integrity check.

const NON_TERMINAL = new Set(["queued", "running"]);

async function listAll(server: TestServer, key: CreatedKey): Promise<ExecutionRecord[]> {
  const all: ExecutionRecord[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : "?limit=100";
    const page = bodyOf<{ data: ExecutionRecord[]; next_cursor: string | null }>(
      await server.request("GET", `/v1/executions${query}`, { key: key.secret }),
    );
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

function integrityCheck(dataDir: string): unknown {
  const db = new Database(join(dataDir, "skillport.db"), { readonly: true });
  try {
    return db.pragma("integrity_check");
  } finally {
    db.close();
  }
}

describe("contract: crash and restart", { timeout: 120_000 }, () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers.reverse()) await server.stop();
  });

  it("after SIGKILL mid-run, the next process loses no answered record and leaves none unfinished", async () => {
    const first = await startServer({ env: { SKILLPORT_ASYNC_CONCURRENCY: "1" } });
    servers.push(first);
    const key = await first.createRoomyKey({ name: "crash" });
    const execute = (json: Record<string, unknown>, headers?: Record<string, string>) =>
      first.request("POST", "/v1/execute", { key: key.secret, json, ...(headers && { headers }) });

    // Running (it holds the only async slot), then queued behind it with an Idempotency-Key.
    const running = bodyOf<ExecutionRecord>(
      await execute({ skill_id: "util.wait", params: { ms: 60_000 }, async: true }),
    );
    const queuedBody = { skill_id: "util.wait", params: { ms: 50 }, async: true };
    const queuedRes = await execute(queuedBody, { "idempotency-key": "resume-me" });
    expect(queuedRes.status).toBe(202);
    const queued = bodyOf<ExecutionRecord>(queuedRes);
    // A synchronous execution in flight when the process dies: its client gets no answer.
    const syncInFlight = execute({ skill_id: "util.wait", params: { ms: 60_000 } }).catch(
      (err: unknown) => err,
    );
    // And a stream of short synchronous executions, answered up to the moment of the kill.
    const answered: ExecutionRecord[] = [];
    let killed = false;
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = 0; !killed; i++) {
        const res: ApiResponse | undefined = await execute({
          skill_id: "math.evaluate",
          params: { expression: `${lane} * 1000 + ${i}` },
        }).catch(() => undefined);
        if (res?.status === 200) answered.push(bodyOf<ExecutionRecord>(res));
      }
    });
    await eventually(async () => {
      const all = await listAll(first, key);
      const runningNow = all.filter((r) => r.status === "running" && r.skill_id === "util.wait");
      return runningNow.length >= 2 && answered.length >= 20 ? true : undefined;
    }, 30_000);
    first.child.kill("SIGKILL");
    await first.exited;
    killed = true;
    await Promise.all(lanes);
    expect(await syncInFlight).toBeInstanceOf(Error);
    // The harness names a dead server in a failed request's error, and how it ended.
    await expect(first.request("GET", "/healthz")).rejects.toThrow(
      /the server had exited \(code null, signal SIGKILL\)/,
    );
    expect(integrityCheck(first.dataDir)).toEqual([{ integrity_check: "ok" }]);

    const second = await startServer({ dataDir: first.dataDir });
    servers.push(second);
    const settled = await eventually(async () => {
      const all = await listAll(second, key);
      return all.some((r) => NON_TERMINAL.has(r.status)) ? undefined : all;
    }, 30_000);
    const byId = new Map(settled.map((r) => [r.id, r]));

    // Every answered record is there, exactly as it was answered.
    for (const record of answered) expect(byId.get(record.id)).toEqual(record);
    // The running async execution and the synchronous one in flight were interrupted.
    expect(byId.get(running.id)).toMatchObject({
      status: "failed",
      error: { code: "execution_interrupted" },
    });
    // Both waits were interrupted; so may be short executions of the stream that were in
    // flight at the kill — but only ones whose client got no answer.
    const interrupted = settled.filter((r) => r.error?.code === "execution_interrupted");
    expect(interrupted.filter((r) => r.skill_id === "util.wait")).toHaveLength(2);
    const answeredIds = new Set(answered.map((r) => r.id));
    for (const record of interrupted) expect(answeredIds.has(record.id)).toBe(false);
    // The queued one resumed in the new process and completed.
    expect(byId.get(queued.id)).toMatchObject({ status: "completed", result: { waited_ms: 50 } });

    // Its Idempotency-Key still answers with the same record and runs nothing again.
    const replay = await second.request("POST", "/v1/execute", {
      key: key.secret,
      json: queuedBody,
      headers: { "idempotency-key": "resume-me" },
    });
    expect(replay.status).toBe(202);
    expect(bodyOf<ExecutionRecord>(replay).id).toBe(queued.id);
    expect(await listAll(second, key)).toHaveLength(settled.length);

    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(integrityCheck(first.dataDir)).toEqual([{ integrity_check: "ok" }]);
  });
});
