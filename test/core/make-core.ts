import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Clock, ManualClock } from "../../src/core/clock.js";
import type { SkillExecutor } from "../../src/core/execution/skill-executor.js";
import type { ApiKey } from "../../src/core/keys/api-key.js";
import type { CreateKeyInput } from "../../src/core/keys/key-service.js";
import { type Logger, silentLogger } from "../../src/core/logger.js";
import type { Store } from "../../src/core/ports.js";
import { Skillport } from "../../src/core/skillport.js";
import type { Skill } from "../../src/core/skills/skill.js";
import { openMemoryStore } from "../../src/store/memory/index.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";

/**
 * The store a core runs on: in memory by default, or a real SQLite file for a test that
 * needs one (its data directory `dir`, a restart or a second core on the file, the time
 * SQLite takes to commit, or SQLite's own errors).
 */
export type CoreStore = "memory" | "sqlite";

/** A core `makeCore` made; on SQLite, with its data directory. */
export type Core<S extends CoreStore = CoreStore> = Awaited<ReturnType<typeof makeCore<S>>>;

/** The real core on the in-memory store (or, with `store: "sqlite"`, a SQLite file), with a clock tests move. */
export async function makeCore<S extends CoreStore = "memory">(
  skills: Skill[],
  options: {
    store?: S;
    /** With `store: "sqlite"`: its data directory (a new temporary one when absent). */
    dir?: string;
    clock?: Clock;
    failedAuthPerMinute?: number;
    asyncConcurrency?: number;
    executor?: SkillExecutor;
    logger?: Logger;
    maxConcurrentPerKey?: number;
    maxPendingExecutions?: number;
    learnWindowMs?: number;
    heartbeatMs?: number;
    /** Each skill's settings, as SKILLPORT_SKILL_CONFIG gives them. */
    skillConfig?: Record<string, Record<string, unknown>>;
    asyncReclaimAfterMs?: number;
    /** Stands in for the store the core is given (e.g. one whose calls fail). */
    wrapStore?: (store: Store) => Store;
  } = {},
) {
  const onSqlite = options.store === "sqlite";
  if (options.dir !== undefined && !onSqlite) throw new Error('makeCore: a `dir` needs `store: "sqlite"`.');
  const dir = onSqlite ? (options.dir ?? (await mkdtemp(join(tmpdir(), "skillport-core-")))) : undefined;
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 30));
  const opened = dir === undefined ? openMemoryStore({ clock }) : openSqliteStore({ dataDir: dir, clock });
  const store = options.wrapStore ? options.wrapStore(opened) : opened;
  const skillport = new Skillport({
    store,
    skills,
    logger: options.logger ?? silentLogger,
    clock,
    ...(options.executor && { executor: options.executor }),
    ...(options.maxConcurrentPerKey && { maxConcurrentPerKey: options.maxConcurrentPerKey }),
    ...(options.maxPendingExecutions && { maxPendingExecutions: options.maxPendingExecutions }),
    ...(options.learnWindowMs !== undefined && { learnWindowMs: options.learnWindowMs }),
    ...(options.heartbeatMs !== undefined && { heartbeatMs: options.heartbeatMs }),
    ...(options.skillConfig && { skillConfig: options.skillConfig }),
    ...(options.asyncReclaimAfterMs !== undefined && { asyncReclaimAfterMs: options.asyncReclaimAfterMs }),
    failedAuthPerMinute: options.failedAuthPerMinute ?? 30,
    asyncConcurrency: options.asyncConcurrency ?? 4,
  });
  await skillport.start();
  const createKey = async (input: Partial<CreateKeyInput> = {}) =>
    skillport.keys.create({ name: "test", scope: "full-access", ...input });
  const keyFor = async (input: Partial<CreateKeyInput> = {}) => {
    const { secret } = await createKey(input);
    return skillport.keys.authenticate(secret);
  };
  /** A sync execution (or async with `extra.async`) of `skill_id` by `key`, default timeout 30 s. */
  const run = (
    key: ApiKey,
    skill_id: string,
    params: Record<string, unknown>,
    extra: { async?: boolean; timeout_ms?: number } = {},
  ) =>
    skillport.executions.execute(key, {
      skill_id,
      params,
      async: extra.async ?? false,
      timeout_ms: extra.timeout_ms ?? 30_000,
    });
  return {
    skillport,
    clock,
    /** The SQLite store's data directory (`store: "sqlite"`). */
    dir: dir as S extends "sqlite" ? string : undefined,
    createKey,
    keyFor,
    run,
    async cleanup() {
      await skillport.stop(1000);
      await skillport.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}
