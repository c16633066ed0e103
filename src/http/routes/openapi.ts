import type { FastifyInstance } from "fastify";
import { buildOpenApiDocument } from "../openapi.js";

/** `/v1/openapi.json`, without a key; the document is built on its first request. */
export function registerOpenApiRoute(app: FastifyInstance, version: string): void {
  let openApi: Record<string, unknown> | undefined;
  app.get("/v1/openapi.json", { config: { public: true } }, async () => {
    openApi ??= buildOpenApiDocument(version);
    return openApi;
  });
}
