import { isUtf8 } from "node:buffer";
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { ServiceError } from "../core/errors.js";
import { readCallerJson } from "../core/unsafe-json.js";
import { parseRequest, type SentElsewhere } from "../core/validation.js";
import { refuseBodyMembersInQuery } from "./query-string.js";

/**
 * Parses `application/json` bodies (`/v1` and `/mcp` alike), and says precisely what is
 * wrong with a body it refuses:
 * - An empty body (or one of JSON's whitespace only) is no body rather than invalid JSON:
 *   clients that send `Content-Type: application/json` on every request (the README's own
 *   curl examples do) must be able to cancel an execution, whose POST has no body. Routes
 *   that need a body still refuse its absence (`parseBody`).
 * - The body is read as UTF-8, which JSON must be (RFC 8259). A body declared in another
 *   charset (`charset=iso-8859-1`), or compressed (`Content-Encoding: gzip`), is refused
 *   with 415: read as UTF-8 it would be stored corrupted, or called invalid JSON. Bytes
 *   that are not UTF-8 in a body declared as such (Latin-1 text sent without its charset)
 *   are refused as invalid JSON, saying so: decoded, they became U+FFFD, and a message or
 *   memory value was stored with characters the client never sent. Fastify reads every
 *   body as bytes and decodes it once, so checking them first costs one pass of simdutf.
 * - Valid JSON that no surface passes on (a `__proto__` key, a number beyond doubles) is
 *   refused by the rule MCP's stdio lines are held to, saying where (`readCallerJson`):
 *   Fastify's own parser refused a prototype key without saying where, in its own words.
 * A leading byte order mark is no part of the JSON, as Fastify's parser had it.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const unreadable = unreadableBodyError(request.headers);
    if (unreadable) return done(unreadable, undefined);
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(invalidJsonError(notUtf8(bytes)), undefined);
    const raw = bytes.toString("utf8");
    if (JSON_WHITESPACE_ONLY.test(raw)) return done(null, undefined);
    const read = readCallerJson(raw.startsWith("\uFEFF") ? raw.slice(1) : raw);
    if (read.kind === "json") return done(null, read.value);
    done(read.kind === "refused" ? read.error : invalidJsonError(read.fault), undefined);
  });
}

/**
 * Where bytes that are not UTF-8 begin, as the refusal says it: the byte's offset and value,
 * which tell a client sending Latin-1 (0xE9 for é) what it did. The decoder puts U+FFFD where
 * an invalid sequence begins; one the body spelled out as its own bytes (EF BF BD) is passed.
 */
function notUtf8(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf("\uFFFD"); at !== -1; at = text.indexOf("\uFFFD", at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at;
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) break;
  }
  const value = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, "0");
  return `it is not UTF-8, which JSON must be: byte ${offset} is 0x${value} (send the text encoded as UTF-8)`;
}

/** What JSON counts as whitespace (RFC 8259), not `trim`'s wider idea of it. */
const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;

/** Charsets whose JSON reads the same as UTF-8 (ASCII is a subset). */
const UTF8_CHARSETS = new Set(["utf-8", "utf8", "us-ascii", "ascii"]);
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** A 415 for a body this parser would misread: another charset, or a content coding. */
function unreadableBodyError(headers: IncomingHttpHeaders): ServiceError | undefined {
  const encoding = headers["content-encoding"]?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    return new ServiceError("unsupported_media_type", {
      message: `The request body must be uncompressed application/json; Content-Encoding "${encoding.slice(0, 40)}" is not supported.`,
    });
  }
  const charset = CHARSET.exec(headers["content-type"] ?? "")?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
    return new ServiceError("unsupported_media_type", {
      message: `The request body must be JSON in UTF-8; charset "${charset.slice(0, 40)}" is not supported.`,
    });
  }
  return undefined;
}

const SEND_JSON = "sent with the header 'Content-Type: application/json'";

/**
 * The 415 for a body that is not declared JSON, naming what it came as: `curl -d` without
 * a Content-Type sends a form, and "must be JSON" alone leaves the caller to guess why its
 * JSON was refused. Only the media type is repeated (at most 60 characters), not the
 * header's parameters.
 */
export function notJsonError(contentType: string | undefined): ServiceError {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase().slice(0, 60);
  const came = mediaType ? `came as ${mediaType}` : "came without a Content-Type header";
  return new ServiceError("unsupported_media_type", {
    message: `The request body must be JSON, ${SEND_JSON}; this one ${came}.`,
  });
}

/**
 * The JSON body of a POST route parsed with `schema`: a body member sent in the query
 * instead refused, a missing body told so, then the body's members (`parseRequest`),
 * `sentElsewhere` naming what goes in a header instead.
 */
export function parseBody<S extends z.ZodObject>(
  request: FastifyRequest,
  schema: S,
  sentElsewhere?: SentElsewhere,
): z.output<S> {
  refuseBodyMembersInQuery(schema, request.query);
  return parseRequest(schema, requiredBody(request), "object", sentElsewhere);
}

/**
 * The body of a route that needs one. The parser reads an empty body as none (see
 * `parseJsonBodies`), which the route's schema would refuse as "(root): ... received
 * undefined": said here in words, with what to send.
 */
function requiredBody(request: FastifyRequest): unknown {
  if (request.body !== undefined) return request.body;
  throw new ServiceError("invalid_request", {
    message: `The request body is empty: ${request.method} ${request.routeOptions.url} takes a JSON object, ${SEND_JSON}.`,
  });
}

/** A body that is not JSON, told where it stops being JSON and why when that is clear (`readCallerJson`). */
function invalidJsonError(fault: string | undefined): ServiceError {
  const why = fault ? `: ${fault}` : "";
  return new ServiceError("invalid_request", { message: `The request body is not valid JSON${why}.` });
}
