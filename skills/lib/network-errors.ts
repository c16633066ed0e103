import { maxHeaderSize } from "node:http";
import { SkillError } from "../../src/core/skills/skill.js";
import { AddressRefusedError } from "./guarded-agent.js";

/** Certificate checks that failed: the server spoke TLS but could not be trusted. */
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME/;
/** zlib's (Z_DATA_ERROR, ...) and brotli's (ERR__ERROR_FORMAT_...) codes for data they cannot decode. */
const DECOMPRESSION_CODE = /^Z_|^ERR__ERROR_/;
/** OpenSSL's codes for a peer that did not answer the handshake with TLS at all. */
const NOT_TLS_CODES = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG"]);

/** Where a request failed: before any response (`request`), or reading the response's body. */
export type NetworkStage = "request" | "body";

/**
 * Turns whatever a network step threw into a SkillError that says what happened in the
 * caller's terms: never a bare library code, and never a certificate problem when the
 * server simply does not speak TLS.
 */
export function describeNetworkError(
  err: unknown,
  url: URL,
  signal: AbortSignal,
  stage: NetworkStage,
): SkillError {
  const refused = findInCauses(err, (e) => e instanceof AddressRefusedError);
  if (refused instanceof AddressRefusedError) return refused;
  if (signal.aborted) {
    return signal.reason instanceof SkillError
      ? signal.reason
      : new SkillError("Request aborted: the execution was cancelled or timed out", { cause: err });
  }
  if (err instanceof SkillError) return err;
  const reason = describeReason(err, url, stage);
  return new SkillError(`Request to ${url.origin} failed${reason}`, { cause: err });
}

/** ": <what went wrong>", or " (<code>)" for a failure with a code we do not know. */
function describeReason(err: unknown, url: URL, stage: NetworkStage): string {
  const code = findCode(err);
  const host = url.host;
  // A TLS server asked with http:// most often just closes the connection (Node's https,
  // openssl s_server), before any response; some send TLS bytes (see HTTPParserError).
  const socketClosed =
    stage === "request" && url.protocol === "http:"
      ? `connection to ${host} closed before any response; if it serves HTTPS, use https://`
      : `connection to ${host} closed unexpectedly`;
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
    UND_ERR_SOCKET: socketClosed,
    UND_ERR_HEADERS_OVERFLOW: `the response headers are larger than ${maxHeaderSize / 1024} KiB, the most this client reads`,
    UND_ERR_REQ_CONTENT_LENGTH_MISMATCH:
      "the Content-Length header does not match the body's length in bytes: leave Content-Length out, it is computed from body",
    UND_ERR_RES_CONTENT_LENGTH_MISMATCH: `${host} sent a body whose length does not match its Content-Length header`,
    UND_ERR_INVALID_ARG: `invalid request: ${err instanceof Error ? err.message : "bad argument"}`,
    UND_ERR_NOT_SUPPORTED: `invalid request: ${err instanceof Error ? err.message : "not supported"}`,
    ERR_INVALID_CHAR: "invalid request: a header contains an invalid character",
    ERR_INVALID_HTTP_TOKEN: "invalid request: a header name is not a valid HTTP token",
  };
  if (code && known[code]) return `: ${known[code]}`;
  if (code && DECOMPRESSION_CODE.test(code)) {
    return `: the response body could not be decompressed: it is not what its Content-Encoding says, or it is damaged (${code})`;
  }
  if (code && NOT_TLS_CODES.has(code)) {
    return `: ${host} did not answer with TLS; if it serves plain HTTP, use http:// (${code})`;
  }
  if (code && CERTIFICATE_CODE.test(code)) return `: TLS certificate problem (${code})`;
  if (code && /SSL|TLS/.test(code)) return `: TLS handshake failed (${code})`;
  // undici's HTTPParserError carries no code: the bytes that came back are not HTTP/1.1,
  // most often a TLS server asked with http://.
  if (findInCauses(err, (e) => e instanceof Error && e.name === "HTTPParserError")) {
    return url.protocol === "http:"
      ? `: ${host} did not answer with HTTP/1.1; if it serves HTTPS, use https://`
      : `: ${host} did not answer with HTTP/1.1`;
  }
  return code ? ` (${code})` : "";
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
