import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExecuteStreamEvent, type ExecutionEvent, Skillport } from "../../src/client/index.js";
import { generateSecret } from "../../src/core/keys/secret.js";
import { awayFromMinuteBoundary, type CreatedKey, serverForSuite } from "../contract/harness.js";
import { runningRecord } from "../support/running-record.js";
import { collect, rejectionOf } from "./support.js";

const statuses = (events: ExecuteStreamEvent[]) =>
  events.flatMap((event) => (event.type === "status" ? [event.record.status] : []));

// README, client library: `executeStream` runs an execution in one request and yields its events.
describe("client: executeStream against the real server", () => {
  const server = serverForSuite();
  let key: CreatedKey;
  let client: Skillport;

  beforeAll(async () => {
    key = await server().createKey({
      owner: "client-stream",
      plan: "enterprise",
      limitMinute: 200,
      limitDay: 10_000,
    });
    client = new Skillport({ apiKey: key.secret, baseUrl: server().baseUrl });
  });
  afterAll(async () => {
    await client?.close();
  });

  const remaining = async () =>
    Number(
      (await server().request("GET", "/v1/skills?limit=1", { key: key.secret })).headers.get(
        "x-ratelimit-remaining",
      ),
    );

  it("yields the running record first, then progress, then the terminal record, in one request counted once", async () => {
    await awayFromMinuteBoundary(10);
    const before = await remaining();
    const events = await collect(client.executeStream({ skill_id: "util.wait", params: { ms: 1_200 } }));
    expect(statuses(events)).toEqual(["running", "completed"]);
    const first = events[0] as Extract<ExecutionEvent, { type: "status" }>;
    expect(events.filter((event) => event.type === "progress")[0]).toMatchObject({
      execution_id: first.record.id,
    });
    expect(events.at(-1)).toMatchObject({ type: "status", record: { id: first.record.id, success: true } });
    // The reading of the limit before, the stream, and this reading: two counted besides the first.
    expect(await remaining()).toBe(before - 2);
  });

  it("throws a refusal before the run as the server's error, before any event", async () => {
    const err = await rejectionOf(
      collect(client.executeStream({ skill_id: "util.wait", params: { ms: "soon" } })),
    );
    expect(err).toMatchObject({ status: 422, code: "invalid_params" });
  });

  it("aborting closes the stream and leaves the execution running, to be cancelled by the id of its first event", async () => {
    const stop = new AbortController();
    let id = "";
    const reading = (async () => {
      for await (const event of client.executeStream(
        { skill_id: "util.wait", params: { ms: 20_000 } },
        { signal: stop.signal },
      )) {
        if (event.type === "status") id = event.record.id;
        stop.abort(new Error("enough"));
      }
    })();
    await expect(reading).rejects.toThrow("enough");
    expect((await client.getExecution(id)).status).toBe("running");
    expect((await client.cancelExecution(id)).status).toBe("cancelled");
  });
});

describe("client: executeStream when the stream ends early", () => {
  it("follows the execution on its own events once its id is known, without running it again", async () => {
    const running = runningRecord("util.wait");
    const completed = { ...running, status: "completed", success: true, result: { waited_ms: 1 } };
    const requests: string[] = [];
    const fake = createServer((req, res) => {
      req.resume();
      requests.push(`${req.method} ${req.url} ${req.headers.accept}`);
      res.writeHead(200, { "content-type": "text/event-stream" });
      // The execute's stream ends on the running record (a server shutting down does so).
      const record = req.method === "POST" ? running : completed;
      res.end(`event: status\ndata: ${JSON.stringify(record)}\n\n`);
    });
    fake.listen(0, "127.0.0.1");
    await once(fake, "listening");
    const { port } = fake.address() as AddressInfo;
    const client = new Skillport({
      apiKey: generateSecret("production"),
      baseUrl: `http://127.0.0.1:${port}`,
    });
    try {
      const events = await collect(client.executeStream({ skill_id: "util.wait", params: { ms: 1 } }));
      expect(statuses(events)).toEqual(["running", "completed"]);
      expect(requests).toEqual([
        "POST /v1/execute text/event-stream",
        `GET /v1/executions/${running.id}/events text/event-stream`,
      ]);
    } finally {
      await client.close();
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});
