import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { ExecuteStreamEvent } from "../core/execution/events.js";
import { EXECUTION_RECORD } from "./answer-shapes.js";
import { clientError } from "./errors.js";

/**
 * The execution events of a `GET /v1/executions/{id}/events` body (or a streamed
 * execute's), in order. The server sends `status` events (data: the record), `progress`
 * events and, to a streamed execute's caller, `log` events (data: the event itself);
 * other event names, if a later server adds some, are skipped.
 */
export async function* executionEventsOf(
  body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<ExecuteStreamEvent> {
  for await (const message of serverSentEvents(body)) {
    if (message.event === "status") {
      const record: unknown = JSON.parse(message.data);
      if (!EXECUTION_RECORD.matches(record)) {
        throw clientError("unexpected_response", "A status event does not carry an execution record.");
      }
      yield { type: "status", record };
    } else if (message.event === "progress" || message.event === "log") {
      yield { ...(JSON.parse(message.data) as object), type: message.event } as ExecuteStreamEvent;
    }
  }
}

/** Server-Sent Events of a byte stream, parsed by eventsource-parser as chunks arrive. */
async function* serverSentEvents(
  body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<EventSourceMessage> {
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    yield* parsed.splice(0);
  }
}
