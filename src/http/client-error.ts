import type { Socket } from "node:net";
import { errorBody, ServiceError } from "../core/errors.js";
import { randomBase62 } from "../core/ids.js";
import type { RateLimitStatus } from "../core/limits/rate-limit.js";
import { MAX_HEADER_LINES } from "./header-lines.js";
import { addressStatusSoon, limitStatusSoon, rateLimitHeaders } from "./rate-limit-headers.js";
import { receivingKeyStatus } from "./receiving-keys.js";

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request — control
 * characters or bytes outside the grammar in a header, an oversized header block, a
 * request (headers or body) not received within the request timeout (slowloris) — in
 * the contract's error envelope, with the limit headers every response carries, then
 * closes the connection. Those are the key's when the request's key was admitted (and
 * counted) before its body stalled (`receivingKeyStatus`), else the connecting address's,
 * as for any request without a valid key: one whose headers did not arrive in time was
 * never authenticated, nor counted against any key.
 */
export function clientErrorAnswerer(
  addressStatus: (address: string) => Promise<RateLimitStatus>,
): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    // A reset connection has nobody left to answer.
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const error = serviceErrorOf(err);
    const keyStatus = receivingKeyStatus(socket);
    const status = keyStatus
      ? limitStatusSoon(keyStatus())
      : addressStatusSoon(addressStatus, socket.remoteAddress ?? "");
    status.then(
      (status) => answer(socket, error, rateLimitHeaders(status, Date.now())),
      // The store failing (or slow) is no reason to leave the client without its answer.
      () => answer(socket, error, {}),
    );
  };
}

function answer(socket: Socket, error: ServiceError, headers: Record<string, string>): void {
  const requestId = `req_${randomBase62(20)}`;
  const body = JSON.stringify({ error: { ...errorBody(error), request_id: requestId } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status] ?? "Error"}\r\n` +
        "content-type: application/json; charset=utf-8\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("") +
        "connection: close\r\n\r\n" +
        body,
    );
  }
  socket.destroy();
}

function serviceErrorOf(err: NodeJS.ErrnoException): ServiceError {
  switch (err.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ServiceError("request_timeout");
    case "HPE_HEADER_OVERFLOW":
      // Node's limit counts the request line with the headers: a long URL meets it too. Node
      // 22 and later also end here for more header lines than the server keeps
      // (`maxHeadersCount`, header-lines.ts), which Node 20 lets through to be refused there.
      return new ServiceError("invalid_request", {
        message: `The request line or headers are too large, or the header lines are too many (at most ${MAX_HEADER_LINES}).`,
      });
    default:
      return new ServiceError("invalid_request", { message: "The request is not valid HTTP/1.1." });
  }
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout" };
