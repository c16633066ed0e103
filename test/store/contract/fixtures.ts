import { randomUUID } from "node:crypto";
import { afterEach, beforeEach } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { ExecutionStatus, StoredExecution } from "../../../src/core/execution/record.js";
import { newId } from "../../../src/core/ids.js";
import type { ApiKey } from "../../../src/core/keys/api-key.js";
import type { KeyPageQuery, Store } from "../../../src/core/ports.js";

/**
 * Builds a store for one test; it must start empty, and `cleanup` must close it and every
 * store `open` gave. `open` opens another store on the same data (what another process,
 * another replica, sees).
 */
export type MakeStore = () => Promise<{ store: Store; open(): Promise<Store>; cleanup(): Promise<void> }>;

/** The store of the running test. */
export interface StoreHandle {
  readonly store: Store;
  /** Another store on the same data, closed after the test. */
  openAnother(): Promise<Store>;
}

/** A fresh store per test, cleaned up after it. */
export function useStore(makeStore: MakeStore): StoreHandle {
  let current: Awaited<ReturnType<MakeStore>> | undefined;
  beforeEach(async () => {
    current = await makeStore();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  const test = () => {
    if (!current) throw new Error("No store: used outside a test.");
    return current;
  };
  return {
    get store(): Store {
      return test().store;
    },
    openAnother: () => test().open(),
  };
}

/** A fixed instant in the middle of a minute, far from any window edge. */
export const T0 = Date.UTC(2026, 2, 14, 9, 26, 30, 500);

/** A store query for every key a test holds (a thousand at most), newest first. */
export const EVERY_KEY: KeyPageQuery = {
  search: { kind: "all" },
  order: "created",
  descending: true,
  limit: 1000,
  now: isoTimestamp(T0),
};

export function uniqueId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}

export function makeKey(overrides: Partial<ApiKey> = {}): ApiKey {
  const id = overrides.id ?? uniqueId("key");
  return {
    id,
    name: `key ${id}`,
    scope: "full-access",
    plan: "pro",
    limits: { perMinute: 600, perDay: 100_000 },
    environment: "production",
    owner: "default",
    hash: randomUUID().replaceAll("-", "").repeat(2),
    prefix: "sk_live_ab",
    last4: "wxyz",
    createdAt: isoTimestamp(T0),
    lastUsedAt: null,
    lastRefusedAt: null,
    expiresAt: null,
    revokedAt: null,
    replaces: null,
    ...overrides,
  };
}

export interface ExecutionOverrides {
  id?: string;
  owner?: string;
  keyId?: string;
  skillId?: string;
  status?: ExecutionStatus;
  createdAt?: string;
  finishedAt?: string | null;
  runnerId?: string;
  result?: Record<string, unknown> | null;
}

/** A record consistent with its status (contract.md, "Execution record"). */
export function makeExecution(overrides: ExecutionOverrides = {}): StoredExecution {
  const status = overrides.status ?? "queued";
  const createdAt = overrides.createdAt ?? isoTimestamp(T0);
  const started = status !== "queued";
  const terminal = status !== "queued" && status !== "running";
  const completed = status === "completed";
  return {
    record: {
      // As the core makes them: an id that begins with the record's created_at (newRecord).
      id: overrides.id ?? newId("exec", Date.parse(createdAt)),
      skill_id: overrides.skillId ?? "math.evaluate",
      status,
      success: completed,
      error:
        terminal && !completed ? { code: "execution_failed", message: "The skill threw an error." } : null,
      latency_ms: terminal ? 12.5 : null,
      result: overrides.result ?? (completed ? { value: 1024, nested: { list: [1, "two", null] } } : null),
      created_at: createdAt,
      started_at: started ? createdAt : null,
      finished_at: overrides.finishedAt !== undefined ? overrides.finishedAt : terminal ? createdAt : null,
    },
    owner: overrides.owner ?? "default",
    keyId: overrides.keyId ?? "key_1",
    params: { expression: "2^10", options: { precision: 4 } },
    async: true,
    timeoutMs: 30_000,
    runnerId: overrides.runnerId ?? "runner_a",
  };
}

/** Polls `read` until `done` holds (for writes an adapter may apply later). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
