import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "../../src/core/logger.js";
import type { Store } from "../../src/core/ports.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { outageReporter } from "../../src/store/postgres/outage.js";
import { openRedisLimiter } from "../../src/store/redis/index.js";
import { startTcpProxy } from "../contract/tcp-proxy.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { startFreezableProxy } from "../support/freezable-proxy.js";
import {
  dropNamespace,
  scaleOutServices,
  skipWithoutServices,
  uniqueNamespace,
} from "../support/scale-out-services.js";
import { EVERY_KEY, makeKey } from "./contract/fixtures.js";

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: unknown) => err,
  );
}

describe("postgresql: damaged data is an outage (no server needed)", () => {
  /** An error as node-postgres reports one the server sent, with its SQLSTATE. */
  const serverError = (code: string, message: string) =>
    Object.assign(new pg.DatabaseError(message, 0, "error"), { code });

  it("takes XX001 data_corrupted and XX002 index_corrupted for outages, logging the first at error once", () => {
    const errors: unknown[][] = [];
    const logger = { error: (...args: unknown[]) => errors.push(args) } as unknown as Logger;
    const isOutage = outageReporter(logger);
    const page = serverError("XX001", "invalid page in block 0 of relation base/5/16396");
    const index = serverError("XX002", 'index "keys_pkey" contains unexpected zero page at block 3');
    expect(isOutage(page)).toBe(true);
    expect(isOutage(page)).toBe(true);
    expect(isOutage(index)).toBe(true);
    expect(errors).toEqual([
      [
        { code: "XX001", reason: "invalid page in block 0 of relation base/5/16396" },
        expect.stringMatching(/^PostgreSQL reports damaged data: answering service_unavailable/),
      ],
    ]);
    // A server's internal error (XX000) is a bug, not a state to wait out; a refused query neither.
    expect(isOutage(serverError("XX000", "cache lookup failed for relation 1"))).toBe(false);
    expect(isOutage(serverError("23505", "duplicate key value violates unique constraint"))).toBe(false);
    expect(errors).toHaveLength(1);
  });
});

const services = scaleOutServices();
if (!services) {
  describe("postgresql: which errors are outages", () => skipWithoutServices("the outage classifier"));
} else {
  const { databaseUrl, redisUrl } = services;

  describe("postgresql: which errors are outages (Store.isOutage)", () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** A store on a schema of its own, connected to PostgreSQL at `url`. */
    const openStore = async (url = databaseUrl, poolSize = 2, logger?: Logger): Promise<Store> => {
      const namespace = uniqueNamespace();
      const limiter = await openRedisLimiter({ redisUrl, keyPrefix: namespace.keyPrefix });
      cleanups.push(() => dropNamespace(services, namespace));
      const store = await openPostgresStore({
        databaseUrl: url,
        schema: namespace.schema,
        limiter,
        poolSize,
        logger,
      }).catch(async (err: unknown) => {
        await limiter.close();
        throw err;
      });
      cleanups.push(() => store.close());
      return store;
    };

    it("takes the database going out of reach under a running store for an outage", async () => {
      // The store reaches PostgreSQL through a proxy; closing the proxy cuts every
      // connection and refuses new ones, as a PostgreSQL that is down or restarting does.
      const target = new URL(databaseUrl);
      const proxy = await startTcpProxy(`http://${target.host}`);
      const proxied = new URL(databaseUrl);
      proxied.port = new URL(proxy.baseUrl).port;
      const store = await openStore(proxied.toString());
      await store.keys.insert(makeKey());
      expect(await store.ping()).toBe(true);
      await proxy.close();
      const err = await rejectionOf(store.keys.listPage(EVERY_KEY));
      expect(store.isOutage(err)).toBe(true);
      expect(await store.ping()).toBe(false);
    });

    it("answers within its deadline when PostgreSQL stops answering, and does not reuse the connection that timed out", {
      timeout: 90_000,
    }, async () => {
      // One pooled connection, frozen (open, silent: a hung server or a dead path) while
      // new ones go through. A transaction on it must fail as an outage within the query
      // deadline (5 s); node-postgres then still waits for that query's answer on it, so
      // given back to the pool it would make every later query wait and fail as well.
      const proxy = await startFreezableProxy(databaseUrl);
      cleanups.push(() => proxy.close());
      const store = await openStore(proxy.via(databaseUrl), 1);
      await store.keys.insert(makeKey());
      expect(proxy.freeze((sent) => !/listen/i.test(sent))).toBeGreaterThan(0);
      const started = performance.now();
      const err = await rejectionOf(store.executions.claimOrphans("runner_x", () => false));
      expect(store.isOutage(err), String(err)).toBe(true);
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(await store.keys.listPage(EVERY_KEY)).toHaveLength(1);
      expect(await store.executions.claimOrphans("runner_x", () => false)).toEqual([]);
    });

    it("hears signals again after its listening connection dies without a word", {
      timeout: 90_000,
    }, async () => {
      // The listening connection goes silent (a NAT's idle timeout, a failover): nothing
      // closes it, so only a check that it still answers finds it and reconnects.
      const proxy = await startFreezableProxy(databaseUrl);
      cleanups.push(() => proxy.close());
      const store = await openStore(proxy.via(databaseUrl));
      const signals = store.signals;
      if (!signals) throw new Error("the PostgreSQL store has signals");
      const heard: string[] = [];
      signals.subscribe((signal) => heard.push(signal.executionId));
      await signals.publish({ type: "cancel", executionId: "exec_before", from: "test" });
      await vi.waitFor(() => expect(heard).toContain("exec_before"), { timeout: 10_000 });
      expect(proxy.freeze((sent) => /listen "skillport/i.test(sent))).toBe(1);
      // The check runs every 5 s with a 5 s deadline: heard again well within 45 s.
      let sent = 0;
      await vi.waitFor(
        async () => {
          await signals.publish({ type: "cancel", executionId: `exec_after_${++sent}`, from: "test" });
          expect(heard.some((id) => id.startsWith("exec_after_"))).toBe(true);
        },
        { timeout: 45_000, interval: 500 },
      );
    });

    // Audit 26 (operations #5): warnings said the signal channel was lost; nothing said it was back.
    it("says in one info line when it listens for signals again, and after how long", async () => {
      const lines: Record<string, unknown>[] = [];
      const store = await openStore(databaseUrl, 2, capturingLogger(lines));
      const signals = store.signals;
      if (!signals) throw new Error("the PostgreSQL store has signals");
      const heard: string[] = [];
      signals.subscribe((signal) => heard.push(signal.executionId));
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        // The listening connection, ended as a restart or an administrator would end it.
        const { rowCount } = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where pid <> pg_backend_pid() and query ilike 'listen "skillport_%' and state = 'idle'
             and backend_start > now() - interval '5 seconds'`,
        );
        expect(rowCount).toBeGreaterThanOrEqual(1);
      } finally {
        await admin.end();
      }
      await vi.waitFor(
        () =>
          expect(
            lines.filter((line) => line.msg === "listening for signals on PostgreSQL again"),
          ).toHaveLength(1),
        { timeout: 10_000, interval: 100 },
      );
      const back = lines.find((line) => line.msg === "listening for signals on PostgreSQL again");
      expect(back).toMatchObject({ level: "info", down_ms: expect.any(Number) });
      expect(Object.keys(back ?? {}).sort()).toEqual(["down_ms", "level", "msg"]);
      // And signals are heard again.
      let sent = 0;
      await vi.waitFor(
        async () => {
          await signals.publish({ type: "cancel", executionId: `exec_back_${++sent}`, from: "test" });
          expect(heard.length).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 200 },
      );
    });

    // A reconnection fails each second while PostgreSQL is away, and each wrote a warning.
    it("warns of its failed reconnections once, not at each one, while PostgreSQL stays out of reach", async () => {
      const target = new URL(databaseUrl);
      const proxy = await startTcpProxy(`http://${target.host}`);
      const proxied = new URL(databaseUrl);
      proxied.port = new URL(proxy.baseUrl).port;
      const lines: Record<string, unknown>[] = [];
      await openStore(proxied.toString(), 2, capturingLogger(lines));
      await proxy.close();
      const retries = () =>
        lines.filter((line) => line.msg === "could not listen for signals on PostgreSQL; retrying");
      await vi.waitFor(() => expect(retries().length).toBeGreaterThanOrEqual(3), {
        timeout: 20_000,
        interval: 100,
      });
      // The first at warn; the next ones within ten seconds at debug (each is a second apart).
      expect(retries()[0]).toMatchObject({ level: "warn", repeats_not_logged: 0 });
      expect(retries().filter((line) => line.level === "warn").length).toBeLessThan(retries().length);
    });

    it("takes a connection the server terminates (57P01) and a refused connection for outages", async () => {
      const store = await openStore();
      const victim = new pg.Client({ connectionString: databaseUrl, application_name: "outage-victim" });
      await victim.connect();
      victim.on("error", () => {});
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        const sleeping = rejectionOf(victim.query("select pg_sleep(30)"));
        // Terminated once it is seen running, as an administrator (or a restart) would.
        for (;;) {
          const { rowCount } = await admin.query(
            `select pg_terminate_backend(pid) from pg_stat_activity
             where application_name = 'outage-victim' and state = 'active'`,
          );
          if (rowCount) break;
        }
        const terminated = await sleeping;
        expect(terminated).toMatchObject({ code: "57P01" });
        expect(store.isOutage(terminated)).toBe(true);
        // The server comes back, and the pool connects again: an outcome refused then is retried.
        expect(store.refusesUntilRestart(terminated)).toBe(false);
      } finally {
        await admin.end();
        await victim.end().catch(() => {});
      }
      const nowhere = new URL(databaseUrl);
      nowhere.port = "1";
      const refused = await rejectionOf(openStore(nowhere.toString()));
      expect(refused).toMatchObject({ code: "ECONNREFUSED" });
      expect(store.isOutage(refused)).toBe(true);
    });

    it("does not take a refused query or a bug for an outage", async () => {
      const store = await openStore();
      const key = makeKey();
      await store.keys.insert(key);
      const duplicate = await rejectionOf(store.keys.insert(key));
      expect(duplicate).toMatchObject({ code: "23505" });
      expect(store.isOutage(duplicate)).toBe(false);
      expect(store.isOutage(new TypeError("undefined is not a function"))).toBe(false);
      expect(store.isOutage(undefined)).toBe(false);
    });
  });
}
