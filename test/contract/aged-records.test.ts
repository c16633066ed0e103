import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinSkills } from "../../skills/index.js";
import { ExecuteRequest } from "../../src/core/api-schemas.js";
import { ManualClock } from "../../src/core/clock.js";
import { makeCore } from "../core/make-core.js";
import { bodyOf, type ExecutionRecord, eventually, startServer, type TestServer } from "./harness.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The body each aged execution was sent with, and the REST repeat sends again. */
const BODY = { skill_id: "math.evaluate", params: { expression: "6*7" } };

/**
 * Promises about time that a test cannot wait for (contract.md): records are kept at least
 * 30 days (configurable), and an Idempotency-Key replays its first record within 24 hours.
 * The past is written into a data dir by the core on a clock set back; the real server
 * then serves that data dir at today's time.
 */
describe("contract: records and idempotency keys that have aged", { timeout: 60_000 }, () => {
  let dataDir: string;
  let secret: string;
  /** Execution ids by age: finished 31 and 29 days ago; idempotent ones 23 and 25 hours ago. */
  const ids: Record<"days31" | "days29" | "hours23" | "hours25", string> = {
    days31: "",
    days29: "",
    hours23: "",
    hours25: "",
  };
  let server: TestServer | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "skillport-aged-"));
    const now = Date.now();
    const clock = new ManualClock(now - 31 * DAY_MS);
    const core = await makeCore(builtinSkills, { store: "sqlite", dir: dataDir, clock });
    try {
      const created = await core.createKey({ name: "aged", plan: "pro" });
      secret = created.secret;
      const key = await core.skillport.keys.authenticate(secret);
      const run = async (idempotencyKey?: string) => {
        const { record } = await core.skillport.executions.execute(key, ExecuteRequest.parse(BODY), {
          idempotencyKey,
        });
        expect(record.status).toBe("completed");
        return record.id;
      };
      ids.days31 = await run();
      clock.set(now - 29 * DAY_MS);
      ids.days29 = await run();
      clock.set(now - 25 * HOUR_MS);
      ids.hours25 = await run("aged-25h");
      clock.set(now - 23 * HOUR_MS);
      ids.hours23 = await run("aged-23h");
    } finally {
      // Not core.cleanup(): it removes the data dir the server is to serve.
      await core.skillport.stop(1000);
      await core.skillport.close();
    }
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const get = (id: string) => server?.request("GET", `/v1/executions/${id}`, { key: secret });

  it("keeps a record as long as SKILLPORT_RETENTION_DAYS says", async () => {
    server = await startServer({ dataDir, env: { SKILLPORT_RETENTION_DAYS: "40" } });
    for (const id of [ids.days31, ids.days29]) expect((await get(id))?.status, id).toBe(200);
    await server.stop();
    server = undefined;
  });

  it("keeps a record 29 days old and deletes one 31 days old by default (at least 30 days)", async () => {
    server = await startServer({ dataDir, env: { SKILLPORT_RETENTION_DAYS: undefined } });
    await eventually(async () => ((await get(ids.days31))?.status === 404 ? true : undefined));
    const kept = await get(ids.days29);
    expect(kept?.status, kept?.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(kept as NonNullable<typeof kept>).id).toBe(ids.days29);
  });

  it("replays the first record for an Idempotency-Key used 23 hours ago, and runs again for one used 25 hours ago", async () => {
    const execute = (idempotencyKey: string) =>
      server?.request("POST", "/v1/execute", {
        key: secret,
        json: BODY,
        headers: { "idempotency-key": idempotencyKey },
      });
    const replayed = await execute("aged-23h");
    expect(replayed?.status, replayed?.text).toBe(200);
    expect(bodyOf<ExecutionRecord>(replayed as NonNullable<typeof replayed>).id).toBe(ids.hours23);
    expect(replayed?.headers.get("idempotent-replayed")).toBe("true");
    const ranAgain = await execute("aged-25h");
    expect(ranAgain?.status, ranAgain?.text).toBe(200);
    const record = bodyOf<ExecutionRecord>(ranAgain as NonNullable<typeof ranAgain>);
    expect(record.id).not.toBe(ids.hours25);
    expect(record).toMatchObject({ status: "completed", result: { value: 42 } });
  });
});
