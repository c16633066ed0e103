import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { isTerminal } from "../core/execution/record.js";
import type { ProcessLoad } from "../core/readiness.js";
import type { Skillport } from "../core/skillport.js";

/**
 * `/metrics` for Prometheus: requests by route and status, their latency, executions by
 * skill and outcome, the execution load (held against capacity, queue depths, worker
 * threads), whether the store serves and Redis answers (scale-out), and Node's own metrics (event-loop delay
 * as `skillport_nodejs_eventloop_lag_*`, heap).
 */
export function registerMetrics(app: FastifyInstance, skillport: Skillport): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "skillport_" });
  const requests = new Counter({
    name: "skillport_http_requests_total",
    help: "HTTP requests by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "skillport_http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30],
    registers: [registry],
  });
  const executions = new Counter({
    name: "skillport_executions_total",
    help: "Finished executions by skill and status",
    labelNames: ["skill_id", "status"] as const,
    registers: [registry],
  });
  const inProgress = new Gauge({
    name: "skillport_executions_in_progress",
    help: "Executions running or queued in this process",
    labelNames: ["state"] as const,
    registers: [registry],
  });
  const pending = new Gauge({
    name: "skillport_executions_pending",
    help: "Unfinished executions this process holds (queued or running), against its capacity",
    labelNames: ["measure"] as const,
    registers: [registry],
  });
  const workerPool = new Gauge({
    name: "skillport_worker_pool",
    help: "Worker threads running isolated skills, and skill runs waiting for one (queue depth)",
    labelNames: ["measure"] as const,
    registers: [registry],
  });
  // One rule for the store and Redis: down from a call that failed for their outage until one
  // lands again, as the log says ("the store is back", "Redis is back").
  const storeUp = new Gauge({
    name: "skillport_store_up",
    help: "1 while the store serves, 0 from a store call that failed as an outage (a request answered service_unavailable, a heartbeat) until a heartbeat lands again",
    registers: [registry],
  });
  // Registered only where limits are counted in Redis (scale-out): elsewhere it would say nothing.
  const redisUp =
    skillport.load().redis === undefined
      ? undefined
      : new Gauge({
          name: "skillport_redis_up",
          help: "1 while limits are counted in Redis, 0 while Redis is out of reach and SKILLPORT_REDIS_DOWN applies",
          registers: [registry],
        });
  /** Sets the load gauges from one reading, so a scrape's figures agree with each other and it reads the load once. */
  const showLoad = ({
    executions: { running, queued, held, capacity },
    workers,
    store,
    redis,
  }: ProcessLoad) => {
    inProgress.set({ state: "running" }, running);
    inProgress.set({ state: "queued" }, queued);
    pending.set({ measure: "held" }, held);
    pending.set({ measure: "capacity" }, capacity);
    workerPool.set({ measure: "threads" }, workers.threads);
    workerPool.set({ measure: "queued" }, workers.queued);
    storeUp.set(store === "down" ? 0 : 1);
    redisUp?.set(redis === "down" ? 0 : 1);
  };

  skillport.events.subscribeAll((event) => {
    if (event.type === "status" && isTerminal(event.record.status)) {
      executions.inc({ skill_id: event.record.skill_id, status: event.record.status });
    }
  });
  // Callback-style: an async hook would cost a promise on every request for nothing awaited.
  app.addHook("onResponse", (request, reply, done) => {
    // The route pattern, not the URL, so ids do not explode the label set; unknown paths share one label.
    const route = request.routeOptions.url ?? "(unmatched)";
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ route }, reply.elapsedTime / 1000);
    done();
  });
  app.get("/metrics", async (_request, reply) => {
    showLoad(skillport.load());
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
