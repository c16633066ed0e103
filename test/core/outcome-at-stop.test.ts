import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { ServiceError } from "../../src/core/errors.js";
import { isTerminal } from "../../src/core/execution/record.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import type { ExecutionStore, Store } from "../../src/core/ports.js";
import { Database } from "../../src/store/sqlite/driver.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { type Core, makeCore } from "./make-core.js";
import { testSkills } from "./test-skills.js";

// Audit 27, finding 1: a sync execution that ran to its end while the disk was full was
// answered 503 "it is recorded as soon as the store is back". A stop before then made one
// last attempt, logged a count and dropped the outcome; the next start stored it
// `failed`/`execution_interrupted`, "stopped before it ended", which was false, and no line
// named the execution or how it had really ended.

const outage = new Database.SqliteError("database or disk is full", "SQLITE_FULL");

/**
 * The store, except that it refuses terminal records while `down.terminal`, as a full disk
 * does, and running ones too while `down.running`.
 */
function refusingOutcomes(down: { terminal: boolean; running?: boolean }) {
  return (store: Store): Store => {
    const { executions } = store;
    const save: ExecutionStore["save"] = async (execution) => {
      if (down.terminal && isTerminal(execution.record.status)) throw outage;
      if (down.running && execution.record.status === "running") throw outage;
      return executions.save(execution);
    };
    return { ...store, executions: Object.assign(Object.create(executions) as ExecutionStore, { save }) };
  };
}

describe("an execution's outcome the store refuses when the process stops", () => {
  const dirs: string[] = [];
  const cores: Core[] = [];
  afterEach(async () => {
    for (const core of cores.splice(0)) {
      await core.skillport.stop(0);
      await core.skillport.close();
    }
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function coreOn(dir: string, options: Parameters<typeof makeCore>[1] = {}) {
    const core = await makeCore(testSkills, { ...options, store: "sqlite", dir, clock: systemClock });
    cores.push(core);
    return core;
  }

  /** A data directory of its own, removed after the test. */
  async function newDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "skillport-outcome-stop-"));
    dirs.push(dir);
    return dir;
  }

  /** A core on a new data directory whose log lines are kept in `lines`. */
  async function loggedCore(options: Parameters<typeof makeCore>[1] = {}) {
    const dir = await newDir();
    const lines: Record<string, unknown>[] = [];
    const core = await coreOn(dir, { ...options, logger: capturingLogger(lines) });
    return { dir, core, lines };
  }

  /** Closes a core before the test ends (its process "stopped"), so that the next start can open its files. */
  async function closeCore(core: Core): Promise<void> {
    await core.skillport.close();
    cores.splice(cores.indexOf(core), 1);
  }

  /** Runs test.echo while the store refuses outcomes: the 503 and the execution's id. */
  async function refusedRun(core: Core, key?: ApiKey): Promise<{ refused: ServiceError; id: string }> {
    key ??= await core.keyFor();
    const refused = await core.run(key, "test.echo", { text: "secret-ish params" }).then(
      () => expect.unreachable("the outcome was stored with the store refusing it"),
      (err: unknown) => err as ServiceError,
    );
    const id = /^The execution (exec_\w+) /.exec(refused.message)?.[1] ?? "";
    return { refused, id };
  }

  it("is stored during the stop once the store takes it again before the deadline", async () => {
    const dir = await newDir();
    const down = { terminal: true };
    const core = await coreOn(dir, { wrapStore: refusingOutcomes(down) });
    const { refused, id } = await refusedRun(core);
    expect(refused.message).toContain("it is recorded as soon as the store is back");
    expect(refused.message).toContain("unless this process stops first");

    // Space is freed while the process stops: within its deadline, the outcome is stored.
    setTimeout(() => {
      down.terminal = false;
    }, 400);
    await core.skillport.stop(3_000);
    expect((await core.skillport.store.executions.get(id))?.record).toMatchObject({
      status: "completed",
      result: { text: "secret-ish params" },
    });
  });

  it("is logged by id, skill and status when given up, and the next start's record does not claim the run was cut off", async () => {
    const { dir, core, lines } = await loggedCore({
      wrapStore: refusingOutcomes({ terminal: true }),
    });
    const { id } = await refusedRun(core);
    await core.skillport.stop(300);
    const lost = lines.filter((line) => line.level === "error" && line.execution_id === id);
    expect(lost).toEqual([
      {
        level: "error",
        execution_id: id,
        skill_id: "test.echo",
        status: "completed",
        finished_at: expect.any(String),
        error_code: null,
        msg: expect.stringContaining("stopped with an execution's outcome the store refused"),
      },
    ]);
    // The store took its running record: the line says what the next start makes of it.
    expect(lost[0]?.msg).toContain(
      "it is lost, and the next start records the execution failed (execution_interrupted); its real outcome is this line's status",
    );
    // Neither its params nor its result reach the log.
    expect(JSON.stringify(lines)).not.toContain("secret-ish params");
    await closeCore(core);

    // The next start ends it, saying what is true whether it ran to its end or not.
    const next = await coreOn(dir);
    await expect
      .poll(async () => (await next.skillport.store.executions.get(id))?.record.status, { timeout: 10_000 })
      .toBe("failed");
    expect((await next.skillport.store.executions.get(id))?.record.error).toEqual({
      code: "execution_interrupted",
      message: "The process running the execution stopped before its outcome was recorded.",
    });
  }, 20_000);

  // A sync run without an Idempotency-Key saves its running record alongside the run: with
  // that save refused too, the store had no record of it, yet the give-up line said the next
  // start would record it failed (execution_interrupted).
  it("says, for a sync run the store took no record of, that the next start knows nothing of it, which it does not", async () => {
    const { dir, core, lines } = await loggedCore({
      wrapStore: refusingOutcomes({ terminal: true, running: true }),
    });
    const { refused, id } = await refusedRun(core);
    // Its 503 promised no record a stop would leave.
    expect(refused.message).toContain(
      "unless this process stops first (its record is then failed, execution_interrupted, or missing if the store took none of it)",
    );
    await core.skillport.stop(300);
    const lost = lines.filter((line) => line.level === "error" && line.execution_id === id && line.status);
    expect(lost).toEqual([
      expect.objectContaining({
        skill_id: "test.echo",
        status: "completed",
        msg: "stopped with an execution's outcome the store refused: it is lost, and the store took no record of it (each save was refused), so the next start knows nothing of it and this line is all that is left of it; its real outcome is this line's status",
      }),
    ]);
    await closeCore(core);

    // As the line says: no record of it, now or once the next start has taken over.
    const next = await coreOn(dir);
    await next.skillport.stop(0);
    expect(await next.skillport.store.executions.get(id)).toBeUndefined();
  }, 20_000);

  // The give-up line said "the next start records the execution failed" whatever the store
  // held: a queued execution cancelled during the outage is still queued there, and the next
  // start runs it.
  it("says, for a queued execution cancelled while the store refused outcomes, that the next start runs it, which it does", async () => {
    const { dir, core, lines } = await loggedCore({
      wrapStore: refusingOutcomes({ terminal: true }),
      asyncConcurrency: 1,
    });
    const key = await core.keyFor();
    const busy = await core.run(key, "test.sleep", { ms: 60_000 }, { async: true });
    const waiting = await core.run(key, "test.echo", { text: "queued behind it" }, { async: true });
    await expect
      .poll(async () => (await core.skillport.store.executions.get(busy.record.id))?.record.status)
      .toBe("running");
    await expect(core.skillport.queries.cancel(key, waiting.record.id)).rejects.toSatisfy((err) =>
      core.skillport.store.isOutage((err as ServiceError).cause ?? err),
    );
    await core.skillport.stop(300);
    const givenUp = (id: string) =>
      lines.filter((line) => line.level === "error" && line.execution_id === id).map((line) => line.msg);
    expect(givenUp(waiting.record.id)).toEqual([
      expect.stringContaining(
        "the store still holds it queued, so it RUNS whatever this line's status says: at the next start",
      ),
    ]);
    // How to keep it from running: its cancel, by its id.
    expect(givenUp(waiting.record.id)[0]).toContain(
      `if it must not run, cancel it (POST /v1/executions/${waiting.record.id}/cancel) as soon as the service answers`,
    );
    expect(givenUp(busy.record.id)).toEqual([
      expect.stringContaining("the next start records the execution failed (execution_interrupted)"),
    ]);
    await closeCore(core);

    // As the lines say: the cancelled one runs, the one cut off ends interrupted.
    const next = await coreOn(dir);
    await expect
      .poll(async () => (await next.skillport.store.executions.get(waiting.record.id))?.record.status, {
        timeout: 10_000,
      })
      .toBe("completed");
    await expect
      .poll(async () => (await next.skillport.store.executions.get(busy.record.id))?.record.error?.code, {
        timeout: 10_000,
      })
      .toBe("execution_interrupted");
  }, 20_000);

  it("refuses an async call whose record went into the deleted database file, rather than answer 202 for it", async () => {
    const dir = await newDir();
    const core = await coreOn(dir);
    const key = await core.keyFor();
    rmSync(join(dir, "skillport.db"));
    await expect(
      core.skillport.executions.execute(
        key,
        { skill_id: "test.echo", params: { text: "lost" }, async: true, timeout_ms: 1000 },
        { idempotencyKey: "into-a-lost-file" },
      ),
      // An outage: the surfaces answer it 503 with Retry-After.
    ).rejects.toSatisfy((err) => core.skillport.store.isOutage(err));
  });

  // A stop after the database file was deleted under the store retried the outcomes it held
  // until its deadline (a warning every 250 ms), though the store then refuses every write
  // until the process restarts.
  it("is given up at once, and logged once, when the store's database file was deleted: the stop does not wait for its deadline", async () => {
    const { dir, core, lines } = await loggedCore();
    const key = await core.keyFor();
    rmSync(join(dir, "skillport.db"));
    const { refused, id } = await refusedRun(core, key);
    expect(refused.code).toBe("service_unavailable");
    // Nothing can be recorded before the restart, which finds no record of it at all.
    expect(refused.message).toBe(
      `The execution ${id} ran and ended completed, but the store takes no record until the service restarts and could not record it; ` +
        `it cannot be recorded: after the restart, GET /v1/executions/${id} shows only what was stored of it before, if anything. ` +
        "Repeating the request after the restart may run the skill again, even with the same Idempotency-Key.",
    );
    // A deadline far past this test's own timeout: only a stop that gives up at once ends in time.
    await core.skillport.stop(10 * 60_000);
    const lost = lines.filter(
      (line) => line.level === "error" && line.execution_id === id && String(line.msg).includes("outcome"),
    );
    expect(lost).toEqual([
      expect.objectContaining({
        skill_id: "test.echo",
        status: "completed",
        msg: expect.stringContaining("outcome the store refuses until the process restarts: it is lost"),
      }),
    ]);
    // Its running record was refused too (into the lost file): no file holds it, lost or not.
    expect(lost[0]?.msg).toContain(
      "the store took no record of it (each save was refused), so the next start knows nothing of it",
    );
    expect(lost[0]?.msg).not.toContain("the next start records the execution failed");
    expect(JSON.stringify(lines)).not.toContain("secret-ish params");
    await closeCore(core);

    // As the line says: the next start opens a new database file, with no record of it.
    const next = await coreOn(dir);
    expect(await next.skillport.store.executions.get(id)).toBeUndefined();
  }, 20_000);
});
