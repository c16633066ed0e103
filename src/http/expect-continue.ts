import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Answers `Expect: 100-continue` when the request's body is first read, not on arrival as
 * Node does by default: a client sends the header so as not to upload a body the server
 * will refuse, and every refusal decided by the headers alone (no key or a wrong one, the
 * scope, a `Content-Length` over the limit, a `Content-Type` that is not JSON, an unknown
 * path or method, a bad Host) is made before any body is read. So such a request gets its
 * refusal without a `100 Continue`, through the same checks as any other, and the
 * connection is closed after it (the body never came: the server's `onSend`); a request
 * that goes on gets its 100 as its body is read, whoever reads it (Fastify's JSON parser,
 * `/mcp`, the dashboard's forms).
 *
 * The stream's `_read` is where every way of reading a body (`data` listeners, `read()`,
 * piping, async iteration) asks for more; Node dumps the unread body of an answered request
 * the same way, once the answer's headers are out, so no 100 can follow a final answer.
 */
export function continueWhenBodyIsRead(request: IncomingMessage, response: ServerResponse): void {
  const read = request._read;
  request._read = function readAfterContinue(size: number) {
    request._read = read;
    if (!response.headersSent && !response.writableEnded) response.writeContinue();
    return read.call(this, size);
  };
}
