import type { FastifyRequest } from "fastify";
import { ServiceError } from "../core/errors.js";

/**
 * The most header lines a request may carry (Node's default keep). Node keeps only about
 * this many and drops the rest without a word, so a late `Authorization` read as no key
 * (401 "No API key"), a late `Idempotency-Key` or `Origin` went unseen, and a second
 * `Host` after them passed the check for two. The server keeps one line more
 * (`maxHeadersCount`), so that a request over the limit is seen to be, and refused. The
 * headers' total size is still capped by Node's parser, whose overflow is answered 400
 * `invalid_request` (`client-error.ts`), not Node's own 431.
 */
export const MAX_HEADER_LINES = 1000;

/** The refusal of a request with more than MAX_HEADER_LINES header lines, if it has them. */
export function headerLinesError(request: FastifyRequest): ServiceError | undefined {
  if (request.raw.rawHeaders.length <= 2 * MAX_HEADER_LINES) return undefined;
  return new ServiceError("invalid_request", {
    message: `The request has too many header lines (more than ${MAX_HEADER_LINES}); send fewer.`,
  });
}
