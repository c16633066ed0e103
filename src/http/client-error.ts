import type { Socket } from "node:net";
import { ServiceError } from "../core/errors.js";
import { randomBase62 } from "../core/ids.js";

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request — control
 * characters or bytes outside the grammar in a header, an oversized header block, a
 * request (headers or body) not received within the request timeout (slowloris) — in
 * the contract's error envelope, then closes the connection.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const error = serviceErrorOf(err);
  const requestId = `req_${randomBase62(20)}`;
  const body = JSON.stringify({ error: { code: error.code, message: error.message, request_id: requestId } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status] ?? "Error"}\r\n` +
        "content-type: application/json; charset=utf-8\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
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
      return new ServiceError("invalid_request", { message: "The request headers are too large." });
    default:
      return new ServiceError("invalid_request", { message: "The request is not valid HTTP/1.1." });
  }
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout" };
