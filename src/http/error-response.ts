import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { type ErrorCode, errorBody, ServiceError } from "../core/errors.js";
import { notJsonError } from "./json-body.js";
import { answerWithLimit } from "./rate-limit-headers.js";

/**
 * Fastify's own errors that are the client's fault, mapped to the contract's codes. (Its JSON
 * parser's are not among them: JSON bodies are read by `parseJsonBodies`, which refuses with
 * the contract's errors itself.)
 */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_request",
  FST_ERR_CTP_INVALID_TYPE: "invalid_request",
  FST_ERR_BAD_URL: "invalid_request",
  FST_ERR_ASYNC_CONSTRAINT: "invalid_request",
};

/** Messages by Fastify code; the others get their contract code's default message. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "The Content-Length header does not match the request body.",
  FST_ERR_BAD_URL: "The URL is not valid: it has a malformed percent-encoding.",
};

/** The core's one mapping of anything thrown to the contract's error (`Skillport.errorOf`). */
export type ErrorMapping = (err: unknown) => ServiceError;

/**
 * Turns anything thrown while handling a request into the contract's error: Fastify's
 * refusals of the request here, everything else by the core's `errorOf` (a store outage
 * is 503, a bug 500).
 */
export function toHttpError(err: unknown, errorOf: ErrorMapping, request: FastifyRequest): ServiceError {
  // The core's errors too: `errorOf` logs those caused by a store outage.
  if (err instanceof ServiceError) return errorOf(err);
  const fastifyError = err as Partial<FastifyError>;
  if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
    return notJsonError(request.headers["content-type"]);
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped && fastifyError.code) {
    // The limit in bytes, as a client sizes its request by it: skills' text params are
    // counted in characters, and outside ASCII a character takes several bytes.
    const message =
      fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE"
        ? `The request body is too large: the limit is ${request.routeOptions.bodyLimit} bytes.`
        : FASTIFY_MESSAGES[fastifyError.code];
    return new ServiceError(mapped, { message, cause: err });
  }
  // Another refusal of the request by Fastify or Node, with no code we know.
  if (fastifyError.statusCode === 400) {
    return new ServiceError("invalid_request", {
      message: "The request is not valid HTTP for this API.",
      cause: err,
    });
  }
  return errorOf(err);
}

/** contract.md: every 401 has `WWW-Authenticate: Bearer`, the dashboard's pages too. */
export const WWW_AUTHENTICATE = 'Bearer realm="skillport"';

/**
 * Sends `{"error":{code, message, details?, retry_after?, request_id}}` with the error's
 * status and headers. A 500 is logged with its cause; its message is the table's generic one.
 */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  errorOf: ErrorMapping,
): FastifyReply {
  const error = toHttpError(err, errorOf, request);
  // A bug is logged with its cause; a 503 (shutting down, saturated) is an answer, not a
  // fault, and a store outage was logged by `errorOf` already.
  if (error.code === "internal_error")
    request.log.error({ err: error.cause ?? error, code: error.code }, "request failed");
  if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
  if (error.status === 401) reply.header("www-authenticate", WWW_AUTHENTICATE);
  // A refusal that gave back what admission counted (a 429 counts in no window).
  if (error.limit) answerWithLimit(request, error.limit);
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  return reply
    .code(error.status)
    .type("application/json; charset=utf-8")
    .send({ error: { ...errorBody(error), request_id: request.id } });
}
