import type { FastifyInstance } from "fastify";
import { ExecuteRequest } from "../../core/api-schemas.js";
import { ServiceError } from "../../core/errors.js";
import { streamExecution } from "../../core/execution/execution-stream.js";
import type { Skillport } from "../../core/skillport.js";
import { prefersEventStream } from "../accept.js";
import { headerCount, keyOf } from "../admission.js";
import { parseBody } from "../json-body.js";
import { streamEvents } from "../sse.js";

/**
 * Members that belong elsewhere, which zod would drop: an idempotency key (a retry would run
 * the skill again), and MCP's `wait_ms` (the call would wait for the end, up to the timeout).
 */
const SENT_ELSEWHERE = {
  idempotencykey: "send an idempotency key in the Idempotency-Key header",
  waitms:
    "this call waits for the end; send async: true for the record at once, then GET /v1/executions/{id}?wait= to wait for its end",
};

/**
 * POST /v1/execute — sync answers 200 with the terminal record, async 202 at once with
 * `Location` (contract.md). A failed execution is a record, not an HTTP error. A sync
 * call whose `Accept` prefers `text/event-stream` to JSON is answered with the execution's
 * events instead, as `GET /v1/executions/{id}/events` sends them: one request for the run
 * and its follow. An async call answers its record whatever `Accept` says: it has no run
 * to follow in its answer.
 */
export function registerExecuteRoute(app: FastifyInstance, skillport: Skillport): void {
  // Scope is checked at admission, before the body (contract.md: 403 for a read-only key).
  app.post("/v1/execute", { config: { scope: "full-access" } }, async (request, reply) => {
    const key = keyOf(request);
    const input = parseBody(request, ExecuteRequest, SENT_ELSEWHERE);
    // Two would be joined into one key ("a, b") that neither sender meant.
    if (headerCount(request.raw.rawHeaders, "idempotency-key") > 1) {
      throw new ServiceError("invalid_request", { message: "Send one Idempotency-Key header, not several." });
    }
    const idempotencyKey = request.headers["idempotency-key"] as string | undefined;
    if (!input.async && prefersEventStream(request.headers.accept)) {
      const events = streamExecution(skillport.executions, skillport.queries, key, input, {
        idempotencyKey,
        onReplayed: () => reply.header("idempotent-replayed", "true"),
        onExecution: (id) => {
          request.executionId = id;
        },
      });
      await streamEvents(reply, events);
      return;
    }
    const { record, mode, replayed } = await skillport.executions.execute(key, input, {
      idempotencyKey,
      onCreated: (id) => {
        request.executionId = id;
      },
    });
    request.executionId = record.id;
    if (replayed) reply.header("idempotent-replayed", "true");
    if (mode === "async") reply.code(202).header("location", `/v1/executions/${record.id}`);
    return record;
  });
}
