import type { FastifyInstance } from "fastify";
import { ListSkillsQuery } from "../../core/api-schemas.js";
import type { Skillport } from "../../core/skillport.js";
import { parseQuery } from "../query-string.js";

/** The catalog (read-only and full-access keys). Skill ids may contain `/`, hence the wildcard. */
export function registerSkillRoutes(app: FastifyInstance, skillport: Skillport): void {
  app.get("/v1/skills", async (request) => {
    const { limit, cursor } = parseQuery(ListSkillsQuery, request.query);
    return skillport.catalog.list(limit, cursor);
  });
  app.get<{ Params: { "*": string } }>("/v1/skills/*", async (request) =>
    skillport.catalog.get(request.params["*"]),
  );
}
