import type { FastifyReply } from "fastify";
import type { ExecuteStreamEvent } from "../core/execution/events.js";
import { setAnsweredLimitHeaders } from "./rate-limit-headers.js";

/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

/**
 * Streams execution events as Server-Sent Events (one place for both streams: an
 * execution's events, and a streamed execute's, which adds the skill's log lines). The first event is read before the
 * response is committed, so an unknown execution still gets a normal JSON 404.
 */
export async function streamEvents(
  reply: FastifyReply,
  events: AsyncGenerator<ExecuteStreamEvent>,
): Promise<void> {
  const first = await events.next();
  // Past `onSend`: the limit headers are set here, as the stream's headers are sent.
  await setAnsweredLimitHeaders(reply.request, reply);
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  // HEAD asks for the headers alone: no stream held open for a body nobody reads.
  if (reply.request.method === "HEAD") {
    await events.return(undefined);
    raw.end();
    return;
  }
  const keepalive = setInterval(() => raw.write(": keep-alive\n\n"), KEEPALIVE_MS);
  try {
    let next = first;
    let sequence = 0;
    while (!next.done) {
      const event = next.value;
      const data = event.type === "status" ? event.record : event;
      raw.write(`id: ${++sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`);
      next = await events.next();
    }
  } finally {
    clearInterval(keepalive);
    await events.return(undefined);
    raw.end();
  }
}
