import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { GetExecutionQuery, ListExecutionsQuery } from "../../core/api-schemas.js";
import type { Skillport } from "../../core/skillport.js";
import { parseOrThrow } from "../../core/validation.js";
import { keyOf } from "../admission.js";
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
    queries.list(keyOf(request), parseOrThrow(ListExecutionsQuery, request.query)),
  );

  app.get<IdParams>("/v1/executions/:id", fullAccess, async (request, reply) => {
    const { wait } = parseOrThrow(GetExecutionQuery, request.query);
    return queries.get(keyOf(request), request.params.id, wait * 1000, untilGone(request, reply, shutdown));
  });

  app.post<IdParams>("/v1/executions/:id/cancel", fullAccess, async (request) =>
    queries.cancel(keyOf(request), request.params.id),
  );

  app.get<IdParams>("/v1/executions/:id/events", fullAccess, async (request, reply) => {
    const events = queries.subscribe(keyOf(request), request.params.id, untilGone(request, reply, shutdown));
    await streamEvents(reply, events);
  });
}

/** A signal that fires when the client goes away or the server shuts down, ending long waits. */
function untilGone(_request: FastifyRequest, reply: FastifyReply, shutdown: AbortSignal): AbortSignal {
  const gone = new AbortController();
  reply.raw.once("close", () => gone.abort());
  return AbortSignal.any([gone.signal, shutdown]);
}
