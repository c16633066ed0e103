import { ServiceError } from "../../core/errors.js";
import type { Logger } from "../../core/logger.js";
import type { LimitDecision, Limiter, LimitGrant, LimitWindow } from "../../core/ports.js";
import { type BetterSqlite3, Database } from "../sqlite/driver.js";
import { SqliteLimiter } from "../sqlite/limiter.js";
import { migrate } from "../sqlite/migrations.js";
import { CircuitBreaker } from "./circuit-breaker.js";

/**
 * What the service does while Redis is unreachable (SKILLPORT_REDIS_DOWN):
 * - `local`: each replica counts in its own memory, with the same windows and limits, so
 *   a key is still limited, but per replica: across N replicas it may get up to N times
 *   its limit until Redis is back. Requests keep being answered.
 * - `refuse`: requests that need a limit decision are answered 503 `service_unavailable`
 *   (with Retry-After) until Redis is back. Nothing is over-admitted.
 * Either way it is logged: an error when Redis is lost, a reminder every minute while it
 * stays lost, and an info line when it is back.
 */
export type RedisDownPolicy = "local" | "refuse";

const REMINDER_MS = 60_000;

/** While Redis is out, how often one PING checks whether it is back (ms). */
const PROBE_EVERY_MS = 1_000;

/** The shared limiter behind the policy: Redis, which can also be asked whether it answers. */
export type ProbedLimiter = Limiter & { ping(): Promise<void>; close(): Promise<void> };

/**
 * The Redis limiter with the degradation policy above, behind a circuit breaker. A call
 * that fails (Redis unreachable, or no answer within its deadline) opens the breaker:
 * from then on calls are answered by the policy at once, without waiting on Redis, while
 * a PING every second (one at a time, in the background) checks whether it is back; the
 * first answer closes the breaker and the next call counts in Redis again. Without the
 * breaker, a hung Redis (its connection still open) cost every call the full deadline.
 *
 * The local counters are the embedded limiter (`SqliteLimiter`) on an in-memory database:
 * the same code, so the same answers, as the single-machine service. A lease granted
 * locally and given back once Redis is up returns to Redis's counters: it can lower them
 * by at most one lease (a small share of a limit), once per outage.
 */
export class DegradableLimiter implements Limiter {
  private readonly localDb: BetterSqlite3.Database;
  private readonly local: SqliteLimiter;
  private readonly breaker: CircuitBreaker;
  private lastReminderMs = 0;

  constructor(
    private readonly primary: ProbedLimiter,
    private readonly policy: RedisDownPolicy,
    private readonly logger: Logger,
  ) {
    this.localDb = new Database(":memory:");
    migrate(this.localDb);
    this.local = new SqliteLimiter(this.localDb);
    this.breaker = new CircuitBreaker({
      probe: () => this.primary.ping(),
      onClosed: (openForMs) => this.recovered(openForMs),
      probeEveryMs: PROBE_EVERY_MS,
    });
  }

  /** True while requests are limited by the policy rather than by Redis. */
  get degraded(): boolean {
    return this.breaker.isOpen;
  }

  consume(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    return this.call((limiter) => limiter.consume(bucket, windows, nowMs));
  }

  peek(bucket: string, windows: LimitWindow[], nowMs: number): Promise<LimitDecision> {
    return this.call((limiter) => limiter.peek(bucket, windows, nowMs));
  }

  acquire(bucket: string, windows: LimitWindow[], wanted: number, nowMs: number): Promise<LimitGrant> {
    return this.call((limiter) => limiter.acquire(bucket, windows, wanted, nowMs));
  }

  /** A give-back that cannot reach Redis is dropped: it errs on the side of fewer requests. */
  async release(bucket: string, windows: LimitWindow[], count: number, grantedAtMs: number): Promise<void> {
    await this.call((limiter) => limiter.release(bucket, windows, count, grantedAtMs)).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.breaker.stop();
    this.localDb.close();
    await this.primary.close();
  }

  private async call<T>(work: (limiter: Limiter) => Promise<T>): Promise<T> {
    if (this.breaker.isOpen) {
      this.remind();
    } else {
      try {
        return await work(this.primary);
      } catch (err) {
        this.lost(err);
      }
    }
    if (this.policy === "refuse") {
      throw new ServiceError("service_unavailable", {
        message: "Rate limits cannot be checked right now. Retry shortly.",
        retryAfterSeconds: 5,
      });
    }
    return work(this.local);
  }

  /** A call failed: opens the breaker, saying so once (calls already in flight fail too). */
  private lost(err: unknown): void {
    if (!this.breaker.trip()) return;
    this.lastReminderMs = Date.now();
    this.logger.error(
      { err, policy: this.policy },
      this.policy === "local"
        ? "Redis is unreachable: limits are counted per replica until it is back"
        : "Redis is unreachable: refusing requests (503) until it is back",
    );
  }

  private remind(): void {
    const now = Date.now();
    if (now - this.lastReminderMs < REMINDER_MS) return;
    this.lastReminderMs = now;
    this.logger.error(
      { policy: this.policy, degraded_for_ms: this.breaker.openForMs },
      "Redis is still unreachable",
    );
  }

  private recovered(openForMs: number): void {
    this.logger.info({ degraded_for_ms: openForMs }, "Redis is back: limits are shared again");
  }
}
