import type { FastifyInstance } from "fastify";
import type { Skillport } from "../../core/skillport.js";
import { EventLoopDelayMonitor } from "../event-loop-delay.js";

/**
 * Liveness (the process answers) and readiness (it can serve, as the core judges it:
 * `readinessOf`), with the load that readiness is judged on: executions held against
 * capacity, worker threads and their queue, whether Redis answers where limits are counted
 * there (read from the limiter's state without asking Redis, so a hung Redis never makes a
 * probe wait), and event-loop delay.
 */
export function registerHealthRoutes(app: FastifyInstance, skillport: Skillport): void {
  const eventLoop = new EventLoopDelayMonitor();
  app.addHook("onClose", async () => eventLoop.close());
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const { status, store, load } = await skillport.readiness();
    reply.code(status === "ready" ? 200 : 503);
    return {
      status,
      store,
      ...(load.redis && { redis: load.redis }),
      executions: load.executions,
      workers: load.workers,
      event_loop_delay_ms: eventLoop.current,
    };
  });
}
