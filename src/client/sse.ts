import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { ExecuteStreamEvent } from "../core/execution/events.js";
import { EXECUTION_RECORD } from "./answer-shapes.js";
import { clientError } from "./errors.js";
import { MAX_ANSWER_BYTES } from "./transport.js";

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

/**
 * The most of one event the client holds while it arrives, in characters: what a JSON
 * answer may hold (transport.ts), for the same reason. The service's largest event, a
 * status event, carries one record, which a JSON answer carries too, far below it; a
 * stream past it is not the service's. eventsource-parser keeps an event in memory until
 * the blank line that ends it, so one that never ended (`data: ` and then hundreds of
 * megabytes without a newline) held all that was sent. A character as the parser counts
 * it (UTF-16) never takes more than the bytes it came in, so no event of the service's
 * under 64 MiB of UTF-8 is refused.
 */
const MAX_EVENT_CHARS = MAX_ANSWER_BYTES;

/**
 * Server-Sent Events of a byte stream, parsed by eventsource-parser as chunks arrive; an
 * event past `MAX_EVENT_CHARS` ends the stream with `unexpected_response`, read no further.
 */
async function* serverSentEvents(
  body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<EventSourceMessage> {
  const parsed: EventSourceMessage[] = [];
  let tooLarge = false;
  const parser = createParser({
    onEvent: (message) => parsed.push(message),
    // The parser's other complaints (an unknown field) are skipped, as EventSource skips them.
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") tooLarge = true;
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    yield* parsed.splice(0);
    if (tooLarge) {
      throw clientError(
        "unexpected_response",
        `An event of the stream is over ${MAX_EVENT_CHARS / 1024 / 1024} MiB (not read whole): no event of the service's is so large.`,
      );
    }
  }
}
