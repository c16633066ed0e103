import type { Dispatcher } from "undici";
import { SkillError } from "../../src/core/skills/skill.js";
import { urlWithoutCredentials } from "../../src/core/skills/url-credentials.js";
import { type AddressPolicy, refuseHost } from "./address-policy.js";
import { AddressRefusedError } from "./guarded-agent.js";
import { describeNetworkError, type NetworkStage } from "./network-errors.js";
import { headersForRedirect } from "./redirect-headers.js";
import { type BodyLimit, readResponseBody } from "./response-body.js";
import { type BodyEncoding, chosenEncoding, encodedBody, type ResponseEncoding } from "./response-text.js";

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface FetchRequest {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body?: string;
  maxBytes: number;
  maxRedirects: number;
  /** When false, a 3xx response is returned as it is instead of being followed. */
  followRedirects: boolean;
  /** Aborting it ends the request; a SkillError given as reason becomes the error thrown. */
  signal: AbortSignal;
  responseEncoding: ResponseEncoding;
}

export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  encoding: BodyEncoding;
  truncated: boolean;
  truncated_by: BodyLimit | null;
  bytes: number;
  url: string;
  redirects: number;
}

export interface FetchDependencies {
  policy: AddressPolicy;
  /** Sends one request; undici's `request` bound to a guarded agent in production. */
  send(url: URL, options: SendOptions): Promise<SendResult>;
}

export interface SendOptions {
  method: HttpMethod;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export type SendResult = Pick<Dispatcher.ResponseData, "statusCode" | "headers" | "body">;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends a request and follows redirects itself, so that every hop's host passes the
 * address policy again (the guarded agent re-checks names after DNS; `refuseHost`
 * checks literal IPs). Reads at most `maxBytes` of the final body, decompressed
 * (`readResponseBody` says how much of a compressed one is downloaded).
 */
export async function fetchFollowingRedirects(
  request: FetchRequest,
  dependencies: FetchDependencies,
): Promise<FetchResponse> {
  let url = parseHttpUrl(request.url);
  let method = request.method;
  let headers = { ...request.headers };
  let body = request.body;
  for (let redirects = 0; ; redirects += 1) {
    const refusal = refuseHost(url.hostname, dependencies.policy);
    if (refusal) throw new AddressRefusedError(refusal);
    const response = await withErrors(url, request.signal, "request", () =>
      dependencies.send(url, { method, headers, body, signal: request.signal }),
    );
    const location = headerValue(response.headers.location);
    if (request.followRedirects && REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
      // The redirect's own body is not wanted; discard a bounded amount and release the socket.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (redirects >= request.maxRedirects) {
        throw new SkillError(
          `Too many redirects: more than ${request.maxRedirects}, last to ${quotedUrl(location)}`,
        );
      }
      const next = resolveLocation(location, url);
      // 303, and 301/302 after a POST, turn into a body-less GET as browsers do (RFC 9110 section 15.4).
      const becomesGet =
        response.statusCode === 303 ||
        (method === "POST" && response.statusCode !== 307 && response.statusCode !== 308);
      if (becomesGet) {
        if (method !== "HEAD") method = "GET";
        body = undefined;
      }
      headers = headersForRedirect(headers, {
        crossOrigin: next.origin !== url.origin,
        keepsBody: !becomesGet,
      });
      url = next;
      continue;
    }
    // HEAD, 204 and 304 have no body whatever Content-Encoding says (RFC 9110 sections 9.3.2, 15.3.5, 15.4.5).
    const hasBody = method !== "HEAD" && response.statusCode !== 204 && response.statusCode !== 304;
    const contentEncoding = hasBody ? headerValue(response.headers["content-encoding"]) : undefined;
    const read = await withErrors(url, request.signal, "body", () =>
      readResponseBody(response.body, contentEncoding, request.maxBytes),
    );
    const responseHeaders = flattenHeaders(response.headers);
    const contentType = headerValue(response.headers["content-type"]);
    const encoding = chosenEncoding(
      request.responseEncoding,
      read.bytes,
      contentType,
      read.truncatedBy !== null,
    );
    return {
      status: response.statusCode,
      // Decoded, the body is no longer what these two describe (as undici's decompress interceptor does).
      headers: read.decoded
        ? withoutHeaders(responseHeaders, ["content-encoding", "content-length"])
        : responseHeaders,
      body: encodedBody(read.bytes, contentType, encoding),
      encoding,
      truncated: read.truncatedBy !== null,
      truncated_by: read.truncatedBy,
      bytes: read.bytes.length,
      url: url.href,
      redirects,
    };
  }
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SkillError(`Invalid URL ${quotedUrl(text)}: give an absolute http:// or https:// URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SkillError(`refused: only http and https URLs are allowed, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username || url.password) {
    throw new SkillError(
      "refused: credentials in the URL are not allowed; send an Authorization header instead",
    );
  }
  return url;
}

function resolveLocation(location: string, base: URL): URL {
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    throw new SkillError(`The server redirected to an invalid URL: ${quotedUrl(location)}`);
  }
  return parseHttpUrl(next.href);
}

/**
 * A URL as an error message quotes it: with its credentials masked as the record keeps the
 * url param (a message is stored and shown with the record), and cut to 200 characters.
 */
function quotedUrl(text: string): string {
  return JSON.stringify(urlWithoutCredentials(text).slice(0, 200));
}

/** Runs one network step and turns whatever it throws into a SkillError a caller can act on. */
async function withErrors<T>(
  url: URL,
  signal: AbortSignal,
  stage: NetworkStage,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw describeNetworkError(err, url, signal, stage);
  }
}

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function flattenHeaders(headers: SendResult["headers"]): Record<string, string> {
  // Built from entries, not by assignment: assigning a header named "__proto__" (any server
  // may send one) sets the object's prototype instead and the header is lost.
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]],
    ),
  );
}
