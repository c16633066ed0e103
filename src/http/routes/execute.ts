import type { FastifyInstance } from "fastify";
import { ExecuteRequest } from "../../core/api-schemas.js";
import type { Skillport } from "../../core/skillport.js";
import { parseOrThrow } from "../../core/validation.js";
import { keyOf } from "../admission.js";

/**
 * POST /v1/execute — sync answers 200 with the terminal record, async 202 at once with
 * `Location` (contract.md). A failed execution is a record, not an HTTP error.
 */
export function registerExecuteRoute(app: FastifyInstance, skillport: Skillport): void {
  // Scope is checked at admission, before the body (contract.md: 403 for a read-only key).
  app.post("/v1/execute", { config: { scope: "full-access" } }, async (request, reply) => {
    const key = keyOf(request);
    const input = parseOrThrow(ExecuteRequest, request.body);
    const idempotencyKey = request.headers["idempotency-key"];
    const { record, mode, replayed } = await skillport.executions.execute(key, input, {
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(",") : idempotencyKey,
    });
    if (replayed) reply.header("idempotent-replayed", "true");
    if (mode === "async") reply.code(202).header("location", `/v1/executions/${record.id}`);
    return record;
  });
}
