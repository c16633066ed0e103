import type { FastifyInstance } from "fastify";
import type { Skillport } from "../../core/skillport.js";
import { EventLoopDelayMonitor } from "../event-loop-delay.js";

/**
 * Liveness (the process answers) and readiness (it can serve: store reachable, not
 * draining, not saturated), with the load that readiness is judged on: executions held
 * against capacity, worker threads and their queue, event-loop delay.
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
      executions: { ...skillport.runner.load, ...skillport.concurrency.usage },
      workers: skillport.executor.load,
      event_loop_delay_ms: eventLoop.current,
    };
  });
}
