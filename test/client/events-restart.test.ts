import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ExecutionEvent, Skillport } from "../../src/client/index.js";
import { eventually, startServer, type TestServer } from "../contract/harness.js";

// README, "On SIGTERM": queued executions stay queued and run at the next start, and the
// server ends the streams following them on `queued`. A client following one goes on
// following it across the restart (review 17, finding 3).
describe("client: executionEvents across a graceful restart", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("follows a queued execution through the server's graceful shutdown to its final status on the next server", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "skillport-test-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const servers: TestServer[] = [];
    cleanups.push(() => Promise.all(servers.map((server) => server.stop())));

    const env = { SKILLPORT_ASYNC_CONCURRENCY: "1", SKILLPORT_SHUTDOWN_TIMEOUT_MS: "500" };
    const first = await startServer({ dataDir, env });
    servers.push(first);
    const key = await first.createRoomyKey({ owner: "client-restart" });
    // Enough retries to outlast the restart: the new stream is refused until the next server listens.
    const client = new Skillport({ apiKey: key.secret, baseUrl: first.baseUrl, maxRetries: 10 });
    cleanups.push(() => client.close());

    // The long run holds the only async slot, so the short one waits queued behind it.
    await client.execute({ skill_id: "util.wait", params: { ms: 60_000 }, async: true });
    const queued = await client.execute({ skill_id: "util.wait", params: { ms: 200 }, async: true });
    expect(queued.status).toBe("queued");

    const seen: ExecutionEvent[] = [];
    const followed = (async () => {
      for await (const event of client.executionEvents(queued.id)) seen.push(event);
    })();
    followed.catch(() => {});
    await eventually(async () => (seen.length > 0 ? true : undefined), 10_000);

    // Exit code 0: a graceful shutdown, which ends the stream on `queued`.
    expect(await first.stop()).toBe(0);
    const second = await startServer({ dataDir, env, port: Number(new URL(first.baseUrl).port) });
    servers.push(second);
    await followed;

    const statuses = seen.flatMap((event) => (event.type === "status" ? [event.record.status] : []));
    // `running` (and the run's progress) only if a stream of the second server began
    // before the run did; `queued` once, though the second server's stream may begin with it.
    expect([
      ["queued", "completed"],
      ["queued", "running", "completed"],
    ]).toContainEqual(statuses);
    expect(seen.at(-1)).toMatchObject({
      type: "status",
      record: { id: queued.id, status: "completed", result: { waited_ms: 200 } },
    });
  }, 60_000);
});
