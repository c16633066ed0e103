import type { ExecuteRequest } from "../api-schemas.js";
import type { ApiKey } from "../keys/api-key.js";
import { type ExecuteStreamEvent, progressEvent } from "./events.js";
import type { ExecutionQueries } from "./execution-queries.js";
import type { ExecuteOptions, ExecuteResult, ExecutionService } from "./execution-service.js";

export interface StreamOptions extends Pick<ExecuteOptions, "idempotencyKey"> {
  /** Told, before the first event, that an Idempotency-Key matched an earlier call. */
  onReplayed?: () => void;
  /** Told the execution's id as soon as it is known (before its first event), e.g. for a log line. */
  onExecution?: (executionId: string) => void;
}

/**
 * A synchronous execution told as it runs (`POST /v1/execute` with `Accept:
 * text/event-stream`): its stored record first, so that the caller knows its id at once
 * and can cancel it; then its progress and the skill's log lines; then its terminal record. Every refusal before
 * the run (scope, skill, params, idempotency, limits) is thrown before the first event,
 * so a surface can still answer it as an error. A repeat with the same Idempotency-Key
 * follows the first call's execution instead: its record as it stands, then its events
 * until it is terminal. The caller leaving does not stop the run, as for a sync execute.
 */
export async function* streamExecution(
  executions: ExecutionService,
  queries: ExecutionQueries,
  key: ApiKey,
  input: ExecuteRequest,
  options: StreamOptions = {},
): AsyncGenerator<ExecuteStreamEvent> {
  const pending: ExecuteStreamEvent[] = [];
  let wake: (() => void) | undefined;
  const push = (event: ExecuteStreamEvent) => {
    pending.push(event);
    wake?.();
  };
  let executionId = "";
  // Settled by the run, read by the loop below (a holder: the compiler cannot see the callbacks).
  const settled: { outcome?: { result: ExecuteResult } | { error: unknown } } = {};
  executions
    .execute(
      key,
      { ...input, async: false },
      {
        idempotencyKey: options.idempotencyKey,
        onLog: ({ level, message, fields }) =>
          push({ type: "log", execution_id: executionId, level, message, fields }),
        replayRunning: true,
        onStored: (record) => {
          executionId = record.id;
          options.onExecution?.(record.id);
          push({ type: "status", record: queries.asShown(record) });
        },
        onProgress: (update) => push(progressEvent(executionId, update)),
      },
    )
    .then(
      (result) => {
        settled.outcome = { result };
      },
      (error: unknown) => {
        settled.outcome = { error };
      },
    )
    .finally(() => wake?.());
  for (;;) {
    const event = pending.shift();
    if (event) {
      yield event;
      continue;
    }
    if (settled.outcome) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  const { outcome } = settled;
  if (outcome === undefined || "error" in outcome) throw outcome?.error;
  const { record, replayed } = outcome.result;
  if (!replayed) {
    yield { type: "status", record };
    return;
  }
  options.onExecution?.(record.id);
  options.onReplayed?.();
  yield* queries.subscribe(key, record.id);
}
