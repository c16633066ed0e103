import { isUtf8 } from "node:buffer";
import type { FastifyInstance } from "fastify";
import { ServiceError } from "../core/errors.js";

/**
 * Parses `application/json` bodies with Fastify's own parser (its prototype-poisoning
 * checks included), and says precisely what is wrong with a body it refuses:
 * - An empty body is no body rather than invalid JSON: clients that send `Content-Type:
 *   application/json` on every request (the README's own curl examples do) must be able
 *   to cancel an execution, whose POST has no body. Routes that need a body still refuse
 *   its absence.
 * - Bytes that are not UTF-8, which JSON must be (RFC 8259), are refused: decoded anyway,
 *   they would reach skills and records as U+FFFD, changed without a word. (A `charset`
 *   parameter is ignored, as RFC 8259 tells recipients to; ASCII is UTF-8 whatever it says.)
 * - Valid JSON refused for a `__proto__` or `constructor.prototype` key says so.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    if (!isUtf8(bytes)) {
      return done(
        new ServiceError("invalid_request", {
          message: "The request body is not valid UTF-8, which JSON must be (RFC 8259).",
        }),
        undefined,
      );
    }
    const text = bytes.toString("utf8");
    void parseJson(request, text, (err, value) => {
      done(err && isPlainJson(text) ? forbiddenKeyError() : err, value);
    });
  });
}

/** Whether plain `JSON.parse` takes `text`: then only the poisoning checks refused it. */
function isPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function forbiddenKeyError(): ServiceError {
  return new ServiceError("invalid_request", {
    message:
      "The request body contains a forbidden key (__proto__, or constructor with a prototype key inside).",
  });
}
