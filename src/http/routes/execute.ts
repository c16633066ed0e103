import type { FastifyInstance } from "fastify";
import { ExecuteRequest } from "../../core/api-schemas.js";
import { ServiceError } from "../../core/errors.js";
import type { ExecuteResult } from "../../core/execution/execution-service.js";
import type { Skillport } from "../../core/skillport.js";
import { parseOrThrow } from "../../core/validation.js";
import { keyOf } from "../admission.js";
import { setRateLimitHeaders } from "../rate-limit-headers.js";

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
    let result: ExecuteResult;
    try {
      result = await skillport.executions.execute(key, input, {
        idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(",") : idempotencyKey,
      });
    } catch (err) {
      // The core gave this request's count back (contract.md: a 429 does not count), so
      // the headers set at admission, which counted it, are one request short.
      if (err instanceof ServiceError && err.code === "concurrency_limit_exceeded") {
        setRateLimitHeaders(reply, await skillport.access.keyStatus(key), Date.now());
      }
      throw err;
    }
    const { record, mode, replayed } = result;
    if (replayed) reply.header("idempotent-replayed", "true");
    if (mode === "async") reply.code(202).header("location", `/v1/executions/${record.id}`);
    return record;
  });
}
