import type { FastifyInstance } from "fastify";
import { DiscoverRequest } from "../../core/api-schemas.js";
import type { Skillport } from "../../core/skillport.js";
import { keyOf } from "../admission.js";
import { parseBody } from "../json-body.js";

/** POST /v1/discover — ranked skills for a free-text query (read-only keys allowed). */
export function registerDiscoverRoute(app: FastifyInstance, skillport: Skillport): void {
  app.post("/v1/discover", async (request, reply) => {
    const answer = await skillport.catalog.discover(parseBody(request, DiscoverRequest), keyOf(request));
    return reply.type("application/json; charset=utf-8").send(skillport.catalog.answerJson(answer));
  });
}
