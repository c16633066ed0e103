import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { ServiceError } from "../../src/core/errors.js";
import type { Logger } from "../../src/core/logger.js";
import { openRedisLimiter, type RedisDownPolicy } from "../../src/store/redis/index.js";
import { freePort } from "../contract/harness.js";
import { scaleOutServices, skipWithoutServices, startRedis } from "../support/scale-out-services.js";
import { eventually, T0, uniqueId } from "./contract/fixtures.js";

function recordingLogger(): Logger & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const logger = {
    lines,
    debug: (_: object, msg = "") => void lines.push({ level: "debug", msg }),
    info: (_: object, msg = "") => void lines.push({ level: "info", msg }),
    warn: (_: object, msg = "") => void lines.push({ level: "warn", msg }),
    error: (_: object, msg = "") => void lines.push({ level: "error", msg }),
    child: () => logger,
  };
  return logger;
}

// The Redis-down policy (docs/deploy.md): never every request let through silently.
describe("redis limiter: when Redis is unreachable", () => {
  if (!scaleOutServices()) {
    skipWithoutServices("the Redis degradation tests");
    return;
  }
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  const setUp = async (policy: RedisDownPolicy) => {
    const port = await freePort();
    const redis = await startRedis(port);
    children.push(redis);
    const logger = recordingLogger();
    const limiter = await openRedisLimiter({
      redisUrl: `redis://127.0.0.1:${port}`,
      whenDown: policy,
      logger,
    });
    const kill = async () => {
      redis.kill("SIGKILL");
      await once(redis, "exit");
    };
    return { port, redis, logger, limiter, kill };
  };
  const windows = [{ limit: 3, windowSeconds: 60 }];

  it("refuses to start without a reachable Redis", async () => {
    const port = await freePort();
    await expect(openRedisLimiter({ redisUrl: `redis://127.0.0.1:${port}` })).rejects.toThrow(
      /Cannot connect to Redis/,
    );
  });

  it("says why Redis refused the first connection: a wrong password, or none where one is needed (audit 26 #5)", async () => {
    const port = await freePort();
    children.push(await startRedis(port, ["--requirepass", "Right-pw-77"]));
    const wrong = openRedisLimiter({ redisUrl: `redis://:Wrong-pw-77@127.0.0.1:${port}` });
    await expect(wrong).rejects.toThrow(/^Cannot connect to Redis at SKILLPORT_REDIS_URL: .*WRONGPASS/);
    await expect(wrong).rejects.not.toThrow(/Wrong-pw-77/);
    await expect(openRedisLimiter({ redisUrl: `redis://127.0.0.1:${port}` })).rejects.toThrow(
      /^Cannot connect to Redis at SKILLPORT_REDIS_URL: Redis asks for a password and the URL has none \(NOAUTH/,
    );
    const right = await openRedisLimiter({ redisUrl: `redis://:Right-pw-77@127.0.0.1:${port}` });
    await right.close();
  });

  it("local: keeps limiting, per replica, says so in an error log line, and shares again once Redis is back", async () => {
    const { port, logger, limiter, kill } = await setUp("local");
    try {
      const bucket = uniqueId("bucket");
      expect((await limiter.consume(bucket, windows, T0)).allowed).toBe(true);
      await kill();
      const during = [];
      for (let i = 0; i < 5; i++) during.push((await limiter.consume(bucket, windows, T0)).allowed);
      // The local counters start afresh, but still stop at the limit.
      expect(during).toEqual([true, true, true, false, false]);
      expect(limiter.degraded).toBe(true);
      expect(logger.lines.filter((line) => line.level === "error")).toHaveLength(1);
      expect(logger.lines[0]?.msg).toMatch(/Redis is unreachable: limits are counted per replica/);

      children.push(await startRedis(port));
      const fresh = uniqueId("bucket");
      await eventually(
        async () => (await limiter.consume(fresh, windows, T0)).allowed && !limiter.degraded,
        (back) => back,
      );
      expect(limiter.degraded).toBe(false);
      expect(logger.lines.at(-1)).toEqual({ level: "info", msg: "Redis is back: limits are shared again" });
    } finally {
      await limiter.close();
    }
  });

  it("does not take a busy event loop for a lost Redis: an answer that arrived meanwhile counts", async () => {
    const { logger, limiter } = await setUp("local");
    try {
      const pending = limiter.consume(uniqueId("bucket"), windows, T0);
      // Redis answers within a millisecond, but this thread only reads it after 1.5 s of
      // work (a module load, a big JSON parse on a loaded machine): past the 1 s deadline.
      const until = Date.now() + 1_500;
      while (Date.now() < until) {
        // busy
      }
      expect((await pending).allowed).toBe(true);
      expect(limiter.degraded).toBe(false);
      expect(logger.lines).toEqual([]);
    } finally {
      await limiter.close();
    }
  });

  it("takes a Redis that stops answering for lost after its deadline, and shares again once it answers", async () => {
    const { redis, logger, limiter } = await setUp("local");
    try {
      const bucket = uniqueId("bucket");
      expect((await limiter.consume(bucket, windows, T0)).allowed).toBe(true);
      redis.kill("SIGSTOP");
      const started = Date.now();
      expect((await limiter.consume(bucket, windows, T0)).allowed).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(limiter.degraded).toBe(true);
      expect(logger.lines[0]?.msg).toMatch(/Redis is unreachable/);
      redis.kill("SIGCONT");
      await eventually(
        async () => (await limiter.consume(uniqueId("bucket"), windows, T0)).allowed && !limiter.degraded,
        (back) => back,
      );
    } finally {
      redis.kill("SIGCONT");
      await limiter.close();
    }
  });

  it("regression: a hung Redis costs one call its deadline, not every call; shared counting resumes once it answers", async () => {
    const { redis, port, logger, limiter } = await setUp("local");
    // A second replica on the same Redis, to see that counting is shared again afterwards.
    const other = await openRedisLimiter({ redisUrl: `redis://127.0.0.1:${port}` });
    try {
      const bucket = uniqueId("bucket");
      expect((await limiter.consume(bucket, windows, T0)).allowed).toBe(true);
      redis.kill("SIGSTOP");
      // The first call finds Redis hung: it waits for its deadline.
      await limiter.consume(bucket, windows, T0);
      expect(limiter.degraded).toBe(true);
      // The next ones are answered locally at once (the deadline is 1 s; the bound is
      // generous for a busy machine).
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await limiter.peek(bucket, windows, T0);
        await limiter.consume(uniqueId("bucket"), windows, T0);
        expect(Date.now() - started).toBeLessThan(500);
      }
      expect(logger.lines.filter((line) => line.level === "error")).toHaveLength(1);

      redis.kill("SIGCONT");
      await eventually(
        async () => limiter.degraded,
        (degraded) => !degraded,
      );
      expect(limiter.degraded).toBe(false);
      expect(logger.lines.at(-1)).toEqual({ level: "info", msg: "Redis is back: limits are shared again" });
      const shared = uniqueId("bucket");
      expect((await limiter.consume(shared, windows, T0)).allowed).toBe(true);
      expect((await other.consume(shared, windows, T0)).allowed).toBe(true);
      expect((await limiter.consume(shared, windows, T0)).allowed).toBe(true);
      expect((await other.consume(shared, windows, T0)).allowed).toBe(false);
    } finally {
      redis.kill("SIGCONT");
      await other.close();
      await limiter.close();
    }
  });

  it("closes within its deadline when Redis stops answering (a shutdown does not hang on it)", async () => {
    const { redis, limiter } = await setUp("local");
    try {
      redis.kill("SIGSTOP");
      // Without a deadline the QUIT waits for ever, and the test's own timeout fails it.
      await limiter.close();
    } finally {
      redis.kill("SIGCONT");
    }
  });

  it("refuse: answers service_unavailable while Redis is unreachable, never admitting", async () => {
    const { logger, limiter, kill } = await setUp("refuse");
    try {
      await kill();
      const refusal = await limiter.consume(uniqueId("bucket"), windows, T0).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(ServiceError);
      expect((refusal as ServiceError).code).toBe("service_unavailable");
      expect(logger.lines[0]).toMatchObject({ level: "error" });
      expect(logger.lines[0]?.msg).toMatch(/refusing requests/);
    } finally {
      await limiter.close();
    }
  });
});
