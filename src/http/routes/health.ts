import type { FastifyInstance } from "fastify";
import type { Skillport } from "../../core/skillport.js";
import { EventLoopDelayMonitor } from "../event-loop-delay.js";

/**
 * Liveness (the process answers) and readiness (it can serve: store reachable, not
 * draining, not saturated), with the load that readiness is judged on: executions held
 * against capacity, worker threads and their queue, event-loop delay.
 *
 * Where limits are counted in Redis, readiness also says whether Redis answers (`redis`:
 * `ok` or `down`), read from the limiter's state without asking Redis, so a hung Redis
 * never makes a probe wait. Redis down leaves the replica ready, whatever the policy:
 * every replica shares that Redis, so taking them out of the load balancer would only
 * trade the policy's answers (limits per replica, or the contract's 503 with Retry-After)
 * for no answer at all.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  skillport: Skillport,
  isClosing: () => boolean,
): void {
  const eventLoop = new EventLoopDelayMonitor();
  app.addHook("onClose", async () => eventLoop.close());
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const storeOk = await skillport.store.ping().catch(() => false);
    const saturated = skillport.concurrency.saturated;
    const ready = storeOk && !isClosing() && !saturated;
    reply.code(ready ? 200 : 503);
    return {
      status: ready ? "ready" : saturated ? "saturated" : "unavailable",
      store: storeOk ? "ok" : "down",
      ...redisState(skillport.store.limiter.degraded),
      executions: { ...skillport.runner.load, ...skillport.concurrency.usage },
      workers: skillport.executor.load,
      event_loop_delay_ms: eventLoop.current,
    };
  });
}

/** `redis: ok | down` where the limiter counts in Redis; nothing for the embedded store. */
function redisState(degraded: boolean | undefined): { redis?: "ok" | "down" } {
  if (degraded === undefined) return {};
  return { redis: degraded ? "down" : "ok" };
}
