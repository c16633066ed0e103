import type { FastifyInstance } from "fastify";
import type { Skillport } from "../../core/skillport.js";

/** Liveness (the process answers) and readiness (it can serve: store reachable, not draining). */
export function registerHealthRoutes(
  app: FastifyInstance,
  skillport: Skillport,
  isClosing: () => boolean,
): void {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const storeOk = await skillport.store.ping().catch(() => false);
    const ready = storeOk && !isClosing();
    const load = skillport.runner.load;
    reply.code(ready ? 200 : 503);
    return { status: ready ? "ready" : "unavailable", store: storeOk ? "ok" : "down", executions: load };
  });
}
