import type { EventEmitter } from "node:events";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { anySignal } from "../../core/any-signal.js";
import { ExecutionIdParams, GetExecutionQuery, ListExecutionsQuery } from "../../core/api-schemas.js";
import type { Skillport } from "../../core/skillport.js";
import { parseOrThrow } from "../../core/validation.js";
import { keyOf } from "../admission.js";
import { parseQuery } from "../query-string.js";
import { streamEvents } from "../sse.js";

type IdParams = { Params: { id: string } };

/** The execution resources of contract.md (full-access keys, own owner only). */
export function registerExecutionRoutes(
  app: FastifyInstance,
  skillport: Skillport,
  shutdown: AbortSignal,
): void {
  const { queries } = skillport;
  // Scope is checked at admission, before the query or body (contract.md: 403 for a read-only key).
  const fullAccess = { config: { scope: "full-access" as const } };

  app.get("/v1/executions", fullAccess, async (request) =>
    queries.list(keyOf(request), parseQuery(ListExecutionsQuery, request.query)),
  );

  app.get<IdParams>("/v1/executions/:id", fullAccess, async (request, reply) => {
    const id = executionIdOf(request);
    const { wait } = parseQuery(GetExecutionQuery, request.query);
    // Only a long poll needs to know that its client left.
    const gone = wait > 0 ? untilGone(reply.raw, shutdown) : undefined;
    return queries.get(keyOf(request), id, wait * 1000, { signal: gone });
  });

  app.post<IdParams>("/v1/executions/:id/cancel", fullAccess, async (request) => {
    return queries.cancel(keyOf(request), executionIdOf(request));
  });

  app.get<IdParams>("/v1/executions/:id/events", fullAccess, async (request, reply) => {
    const id = executionIdOf(request);
    const events = queries.subscribe(keyOf(request), id, untilGone(reply.raw, shutdown));
    await streamEvents(reply, events);
  });
}

/** The execution id the path names, checked as get_execution checks it (`ExecutionId`), for the request's log line. */
function executionIdOf(request: FastifyRequest<IdParams>): string {
  const { id } = parseOrThrow(ExecutionIdParams, request.params);
  request.executionId = id;
  return id;
}

/**
 * A signal that fires when the response closes (the client went away, or it was sent) or
 * the server shuts down, ending long waits. The close lets go of the shutdown signal, which
 * outlives every request.
 */
export function untilGone(response: EventEmitter, shutdown: AbortSignal): AbortSignal {
  const gone = anySignal([shutdown]);
  // A plain reason: without one, abort() builds a DOMException with its stack, per request.
  response.once("close", () => gone.abort("response closed"));
  return gone.signal;
}
