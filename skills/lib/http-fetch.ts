import type { Dispatcher } from "undici";
import { SkillError } from "../../src/core/skills/skill.js";
import { type AddressPolicy, refuseHost } from "./address-policy.js";
import { AddressRefusedError } from "./guarded-agent.js";
import { headersForRedirect } from "./redirect-headers.js";

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
  responseEncoding: "text" | "base64";
}

export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
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
 * checks literal IPs). Reads at most `maxBytes` of the final body.
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
    const response = await withErrors(url, request.signal, () =>
      dependencies.send(url, { method, headers, body, signal: request.signal }),
    );
    const location = headerValue(response.headers.location);
    if (request.followRedirects && REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
      // The redirect's own body is not wanted; discard a bounded amount and release the socket.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (redirects >= request.maxRedirects) {
        throw new SkillError(
          `Too many redirects: more than ${request.maxRedirects}, last to ${location.slice(0, 200)}`,
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
    const read = await withErrors(url, request.signal, () => readCapped(response.body, request.maxBytes));
    return {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      body:
        request.responseEncoding === "base64"
          ? read.bytes.toString("base64")
          : decodeText(read.bytes, response.headers),
      truncated: read.truncated,
      bytes: read.bytes.length,
      url: url.href,
      redirects,
    };
  }
}

export function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SkillError(`Invalid URL ${JSON.stringify(text)}: give an absolute http:// or https:// URL`);
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
    throw new SkillError(
      `The server redirected to an invalid URL: ${JSON.stringify(location.slice(0, 200))}`,
    );
  }
  return parseHttpUrl(next.href);
}

async function readCapped(
  body: SendResult["body"],
  maxBytes: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (total + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - total));
      // Stop reading: the rest of the body is never downloaded.
      body.destroy();
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    total += buffer.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** Runs one network step and turns whatever it throws into a SkillError a caller can act on. */
async function withErrors<T>(url: URL, signal: AbortSignal, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw describeNetworkError(err, url, signal);
  }
}

function describeNetworkError(err: unknown, url: URL, signal: AbortSignal): SkillError {
  const refused = findInCauses(err, (e) => e instanceof AddressRefusedError);
  if (refused instanceof AddressRefusedError) return refused;
  if (signal.aborted) {
    return signal.reason instanceof SkillError
      ? signal.reason
      : new SkillError("Request aborted: the execution was cancelled or timed out", { cause: err });
  }
  if (err instanceof SkillError) return err;
  const code = findCode(err);
  const host = url.host;
  const known: Record<string, string> = {
    ENOTFOUND: `could not resolve host ${url.hostname}`,
    EAI_AGAIN: `could not resolve host ${url.hostname} (temporary DNS failure)`,
    ECONNREFUSED: `connection refused by ${host}`,
    ECONNRESET: `connection reset by ${host}`,
    EHOSTUNREACH: `host ${host} is unreachable`,
    ENETUNREACH: `network unreachable for ${host}`,
    ETIMEDOUT: `connection to ${host} timed out`,
    UND_ERR_CONNECT_TIMEOUT: `connection to ${host} timed out`,
    UND_ERR_HEADERS_TIMEOUT: `${host} did not send response headers in time`,
    UND_ERR_BODY_TIMEOUT: `${host} stopped sending the response body`,
    UND_ERR_SOCKET: `connection to ${host} closed unexpectedly`,
    UND_ERR_INVALID_ARG: `invalid request: ${err instanceof Error ? err.message : "bad argument"}`,
    ERR_INVALID_CHAR: "invalid request: a header contains an invalid character",
    ERR_INVALID_HTTP_TOKEN: "invalid request: a header name is not a valid HTTP token",
  };
  if (code && known[code])
    return new SkillError(`Request to ${url.origin} failed: ${known[code]}`, { cause: err });
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(code)) {
    return new SkillError(`Request to ${url.origin} failed: TLS certificate problem (${code})`, {
      cause: err,
    });
  }
  return new SkillError(`Request to ${url.origin} failed${code ? ` (${code})` : ""}`, { cause: err });
}

function findInCauses(err: unknown, test: (e: unknown) => boolean): unknown {
  for (let current = err, depth = 0; current && depth < 5; depth += 1) {
    if (test(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

function findCode(err: unknown): string | undefined {
  const withCode = findInCauses(
    err,
    (e) => typeof e === "object" && e !== null && "code" in e && typeof e.code === "string",
  ) as { code: string } | undefined;
  return withCode?.code;
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

/** Decodes with the charset the response declares, UTF-8 when it declares none or an unknown one. */
function decodeText(bytes: Buffer, headers: SendResult["headers"]): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(headerValue(headers["content-type"]) ?? "")?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}
