import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ApiKey } from "../core/keys/api-key.js";
import type { Skillport } from "../core/skillport.js";
import { sendError } from "./error-response.js";
import { setRateLimitHeaders } from "./rate-limit-headers.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The admitted API key, set for `/v1` routes that need one. */
    apiKey?: ApiKey;
  }
  interface FastifyContextConfig {
    /** The route needs no API key (e.g. the OpenAPI document). */
    public?: boolean;
  }
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The secret of an `Authorization: Bearer <secret>` header; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/**
 * Admits every `/v1` request through the core's gate before its body is read: the key,
 * then its limits (contract.md: every request with a valid key counts once, 404s
 * included). Every response carries the limit headers, refusals too.
 */
export function registerAdmission(app: FastifyInstance, skillport: Skillport): void {
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) =>
    admitRequest(skillport, request, reply),
  );
}

/**
 * Admits one request (see `registerAdmission`); answers and returns the reply when it is
 * refused. Also used for requests Fastify refuses before routing, which skip the hooks.
 */
export async function admitRequest(
  skillport: Skillport,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  if (!isV1Request(request)) return undefined;
  const now = Date.now();
  if (request.routeOptions.config?.public) {
    setRateLimitHeaders(reply, await skillport.access.addressStatus(request.ip), now);
    return undefined;
  }
  // Node keeps the first of several Authorization headers; which one a proxy used is
  // anyone's guess, so an ambiguous request is refused like a malformed key.
  const bearer = hasOneAuthorization(request.raw.rawHeaders)
    ? bearerToken(request.headers.authorization)
    : AMBIGUOUS_BEARER;
  const admission = await skillport.access.admit(bearer, request.ip);
  if (admission.limit) setRateLimitHeaders(reply, admission.limit, now);
  if (!admission.admitted) return sendError(request, reply, admission.error);
  request.apiKey = admission.key;
  return undefined;
}

/** Not a well-formed secret: the gate refuses it as `invalid_api_key`, counting the address. */
const AMBIGUOUS_BEARER = "(more than one Authorization header)";

function hasOneAuthorization(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.length === 13 && rawHeaders[i]?.toLowerCase() === "authorization") seen++;
  }
  return seen <= 1;
}

/** The admitted key of a request that passed `registerAdmission`. */
export function keyOf(request: FastifyRequest): ApiKey {
  if (!request.apiKey) throw new Error(`route ${request.url} reached without an admitted key`);
  return request.apiKey;
}

/**
 * Whether a request is under `/v1`, judged on the route it reached: the router decodes
 * the path, so `/%761/discover` reaches `/v1/discover` although its raw URL does not
 * start with `/v1`. A request that reached no route is judged on its decoded path.
 */
function isV1Request(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route !== undefined && !request.is404) return isV1(route);
  const path = request.url.split("?")[0] ?? "";
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed encoding: judge the raw path (it fails to route anyway).
  }
  return isV1(path) || isV1(decoded);
}

function isV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?");
}
