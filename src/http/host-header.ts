import type { FastifyRequest } from "fastify";
import { ServiceError } from "../core/errors.js";
import { headerCount } from "./admission.js";

/**
 * The refusal of a request whose Host header is wrong, if it is (RFC 9112, section 3.2):
 * HTTP/1.1 requires one (HTTP/1.0 does not), and two must be refused. Node keeps the first
 * of two, and an intermediary may act on the other: `/mcp`'s DNS-rebinding check would vet
 * one name while a proxy routed by the other. (Node's own check, which answers an empty
 * 400, is turned off so that this one answers in the contract's envelope.)
 */
export function hostHeaderError(request: FastifyRequest): ServiceError | undefined {
  if (request.headers.host === undefined) {
    return request.raw.httpVersion === "1.0"
      ? undefined
      : new ServiceError("invalid_request", {
          message: "The request has no Host header, which HTTP/1.1 requires.",
        });
  }
  return headerCount(request.raw.rawHeaders, "host") > 1
    ? new ServiceError("invalid_request", { message: "The request has more than one Host header; send one." })
    : undefined;
}
