import type { FastifyReply, FastifyRequest } from "fastify";
import { requireScope } from "../core/access.js";
import { ServiceError } from "../core/errors.js";
import type { ApiKey, Scope } from "../core/keys/api-key.js";
import type { Skillport } from "../core/skillport.js";
import {
  addressStatusSoon,
  answerWithLimit,
  rateLimitHeaders,
  setAnsweredLimitHeaders,
} from "./rate-limit-headers.js";
import { noteAdmittedKey } from "./receiving-keys.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The admitted API key, set for `/v1` routes that need one. */
    apiKey?: ApiKey;
  }
  interface FastifyContextConfig {
    /** The route needs no API key (e.g. the OpenAPI document); one given still counts. */
    public?: boolean;
    /** The scope the route needs, checked at admission, before the query or body is read. */
    scope?: Scope;
  }
}

const BEARER = /^Bearer[ \t]+(.*?)[ \t]*$/i;

/** Not a well-formed secret: the gate refuses it as `invalid_api_key`, counting the address. */
const AMBIGUOUS_BEARER = "(more than one Authorization header)";

/**
 * The secret a request's `Authorization: Bearer <secret>` header holds, for the gate, on
 * `/v1` and `/mcp` alike; undefined when there is none. What follows `Bearer` is the secret
 * whatever it holds (`<key> extra` is a malformed key, refused as invalid, not as missing: a
 * key was sent). Node keeps the first of several Authorization headers; which one a proxy
 * used is anyone's guess, so an ambiguous request is refused like a malformed key.
 */
export function bearerOf(request: FastifyRequest): string | undefined {
  if (headerCount(request.raw.rawHeaders, "authorization") > 1) return AMBIGUOUS_BEARER;
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1] || undefined;
}

const BEARER_FORM = "send 'Authorization: Bearer <API_KEY>'";

/**
 * The gate's refusal of a request's key in words fitting what was sent; the code stays
 * (contract.md) and the header's value is never repeated.
 * - `missing_api_key` (no `Authorization: Bearer` header): a caller who sent a key without
 *   the `Bearer ` scheme (`Authorization: sk_live_…`) or in `X-Api-Key` was told "No API
 *   key", and the first words said they sent none.
 * - `invalid_api_key` for several Authorization headers (refused, counted against the
 *   address, as a malformed key is): a message about the key's shape or its revocation sent
 *   its user off to check keys that were fine (an SDK's default header beside one a proxy
 *   or middleware adds).
 * Any other refusal (the address's limit, 429) is kept as it is.
 */
export function explainedAuthError(
  request: FastifyRequest,
  bearer: string | undefined,
  error: ServiceError,
): ServiceError {
  if (bearer === AMBIGUOUS_BEARER && error.code === "invalid_api_key") {
    return new ServiceError("invalid_api_key", {
      message: "The request has more than one Authorization header: send the API key in one.",
    });
  }
  if (error.code !== "missing_api_key") return error;
  const header = request.headers.authorization;
  if (header !== undefined && header.trim() !== "") {
    return error.withMessage(
      /^Bearer\s*$/i.test(header)
        ? `The Authorization header holds the 'Bearer' scheme but no key: ${BEARER_FORM}.`
        : `The Authorization header has no 'Bearer ' scheme before the key: ${BEARER_FORM}.`,
    );
  }
  if (request.headers["x-api-key"] !== undefined) {
    return error.withMessage(`The key goes in the Authorization header, not in X-Api-Key: ${BEARER_FORM}.`);
  }
  return error;
}

/**
 * Admits a request through the core's gate before its body is read (the server's
 * `onRequest` hook; also used for requests Fastify refuses before routing, which skip
 * the hooks). Only `/v1` requests are admitted: the key, then its limits (contract.md:
 * every request with a valid key counts once, 404s included), then the route's scope.
 * Resolves with the refusal to answer, or undefined when the request goes on. Either way
 * the limit checked is the one the response describes (`answerWithLimit`), as of when it
 * is sent: for a sync execute or a long poll, long after.
 */
export async function admitRequest(skillport: Skillport, request: FastifyRequest): Promise<unknown> {
  if (!isV1Request(request)) return undefined;
  const bearer = bearerOf(request);
  const { config } = request.routeOptions;
  // No key for a route that needs none: the address's headers come with the answer.
  if (config?.public && bearer === undefined) return undefined;
  const admission = await skillport.access.admit(bearer, request.ip);
  if (!admission.admitted) {
    if (admission.limit) answerWithLimit(request, admission.limit);
    request.limitedKeyId = admission.key?.id;
    // A public route answers a wrong key as if there were none, unless the limit refused it.
    if (config?.public && admission.error.code !== "rate_limit_exceeded") return undefined;
    return explainedAuthError(request, bearer, admission.error);
  }
  const { key } = admission;
  const limitStatus = () => skillport.access.limitStatus(key);
  answerWithLimit(request, admission.limit, limitStatus);
  noteAdmittedKey(request, limitStatus);
  request.apiKey = key;
  if (config?.scope) {
    try {
      requireScope(key, config.scope);
    } catch (err) {
      return err;
    }
  }
  return undefined;
}

/**
 * Every response carries the limit headers (interface-spec.md, "Limits"), refusals too:
 * those of the limit it answers with, as of now (`setAnsweredLimitHeaders`). One that has
 * none from admission (outside `/v1`, a public route without a key, a refusal before
 * admission) describes the client address's limit, without counting. Calls `done` once
 * they are set (the server's `onSend` hook runs this on every response). When the limits cannot be read soon
 * (`addressStatusSoon`: Redis hung, or out of reach under SKILLPORT_REDIS_DOWN=refuse), the
 * response goes without them: failing or holding it would replace an answer already made,
 * the contract's 503 or a `/healthz`, with another, or with none in time.
 */
export function ensureRateLimitHeaders(
  skillport: Skillport,
  request: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
): void {
  if (request.answeredLimit) {
    const rereading = setAnsweredLimitHeaders(request, reply);
    if (rereading) rereading.then(done, done);
    else done();
    return;
  }
  if (reply.hasHeader("x-ratelimit-limit")) {
    done();
    return;
  }
  addressStatusSoon((address) => skillport.access.addressStatus(address), request.ip).then(
    (status) => {
      reply.headers(rateLimitHeaders(status, Date.now()));
      done();
    },
    (err: unknown) => {
      request.log.debug({ err }, "no limit headers: the limits cannot be read");
      done();
    },
  );
}

/**
 * How many times a header (`name` in lower case) came. Node joins the values of most
 * repeated headers with ", " and keeps the first of others, so a header whose meaning a
 * join or a choice would change must be counted here.
 */
export function headerCount(rawHeaders: string[], name: string): number {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.length === name.length && rawHeaders[i]?.toLowerCase() === name) seen++;
  }
  return seen;
}

/** The admitted key of a request that passed `admitRequest`. */
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
