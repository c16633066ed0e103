import { z } from "zod";
import { anySignal } from "../src/core/any-signal.js";
import { sensitive } from "../src/core/skills/sensitive-params.js";
import { defineSkill, SkillError } from "../src/core/skills/skill.js";
import { type AddressPolicy, anyAddress, publicAddressesOnly } from "./lib/address-policy.js";
import { createGuardedAgent } from "./lib/guarded-agent.js";
import { type FetchDependencies, fetchFollowingRedirects, HTTP_METHODS } from "./lib/http-fetch.js";
import { lazy } from "./lib/lazy.js";
import { refuseUnsendableHeaders } from "./lib/request-header-rules.js";
import { BODY_LIMITS, COMPRESSED_SLACK_BYTES } from "./lib/response-body.js";
import { RESPONSE_ENCODINGS } from "./lib/response-text.js";
import { LONGER_RUN } from "./lib/run-timeout.js";
import { MAX_TEXT_CHARACTERS, TEXT_SIZE_NOTE } from "./lib/text-limits.js";

const MAX_REDIRECTS = 5;
const MIB = 1024 * 1024;
const MAX_BODY_BYTES = 5 * MIB;
const USER_AGENT = "skillport-http-request/1.0";
const COMPRESSED_SLACK = `${COMPRESSED_SLACK_BYTES / 1024} KiB`;

const loadUndici = lazy(() => import("undici"));
const publicOnlyAgent = lazy(() => createGuardedAgent(publicAddressesOnly));
const unrestrictedAgent = lazy(() => createGuardedAgent(anyAddress));

export const httpRequest = defineSkill({
  id: "http.request",
  title: "Make an HTTP request",
  description:
    "Sends an HTTP(S) request (GET, HEAD, POST, PUT, PATCH, DELETE) to a public URL and returns status, headers and body " +
    "(capped at max_bytes, 1 MiB by default, decompressed when the server sent gzip, deflate or br): text for text, " +
    "JSON and XML, base64 for binary content such as images (`encoding` says which), following up to 5 redirects. Use it to call a web API or fetch a page; " +
    "private, loopback and cloud-metadata addresses are refused.",
  tags: ["http", "https", "fetch", "web", "api", "request", "url", "download", "rest"],
  params: z.object({
    // Credentials ride in the URL (`?api_key=…`) and the headers (`Authorization`): the
    // stored record keeps them only until the request can no longer start.
    url: sensitive(
      z.string().min(1).max(8192).describe("Absolute http:// or https:// URL to request."),
      "url",
    ),
    method: z.enum(HTTP_METHODS).default("GET").describe("HTTP method."),
    headers: sensitive(
      z
        .record(z.string().min(1).max(256), z.string().max(8192))
        .default({})
        .refine((headers) => Object.keys(headers).length <= 50, "at most 50 headers")
        .describe(
          'Request headers, e.g. {"Authorization": "Bearer ...", "Accept": "application/json"}. All are sent on ' +
            "redirects within the same origin; a redirect to another origin gets only Accept, Accept-Encoding, " +
            "Accept-Language, Cache-Control, Range, User-Agent and, when the body is kept (307, 308), its " +
            "Content-Type: credentials such as Authorization, Cookie or X-Api-Key are not passed on.",
        ),
      "entries",
    ),
    body: z
      .string()
      .max(MAX_TEXT_CHARACTERS)
      .optional()
      .describe(
        "Request body for POST, PUT, PATCH or DELETE. Without a Content-Type header, a body that parses as JSON " +
          `is sent as application/json, anything else as text/plain. ${TEXT_SIZE_NOTE}`,
      ),
    timeout_ms: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(10_000)
      .describe(
        "Give up after this many milliseconds, redirects and body included (100-60000). " +
          `${LONGER_RUN}: over 30000, give the execution one above this one.`,
      ),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(MAX_BODY_BYTES)
      .default(MIB)
      .describe(
        "Read at most this many bytes of the response body, counted after decompression. A compressed body is " +
          `also downloaded no further than max_bytes + ${COMPRESSED_SLACK}, however little that decodes to. ` +
          "`truncated` tells whether more was left, `truncated_by` which limit cut it.",
      ),
    follow_redirects: z
      .boolean()
      .default(true)
      .describe("Follow up to 5 redirects; when false the 3xx response itself is returned."),
    response_encoding: z
      .enum(RESPONSE_ENCODINGS)
      .default("auto")
      .describe(
        "auto: text (decoded with the response charset) for a textual Content-Type (text/*, JSON, XML, YAML, " +
          "JavaScript, forms) or none, base64 for any other (images, PDF, archives, octet-stream) and for bytes " +
          "the charset cannot hold, so no byte is lost. text: always text, invalid bytes replaced by U+FFFD. " +
          "base64: always base64.",
      ),
  }),
  // The URL the request ended at, and a Location or Link header, may repeat the url's
  // credentials (`?api_key=…`, a redirect to https:// with the same query): they are masked
  // the same way in the record, which is also the answer (the caller knows its own key). A
  // Link header, known by its name, keeps its syntax, each link masked on its own, so an
  // agent can still follow every one; a header value that is no URL is kept as it is: a
  // Set-Cookie is the caller's to use.
  result: z.object({
    status: z.number().int().describe("HTTP status code of the final response."),
    headers: sensitive(z.record(z.string(), z.string()), "headers").describe(
      "Response headers, lower-case names; repeated ones joined by ', '. In a URL a header holds (Location, " +
        "Refresh, each link of a Link), credential query values and passwords are [redacted], as in url; a " +
        "Link header keeps its brackets, quotes, params and every link.",
    ),
    body: z
      .string()
      .describe(
        "Response body as text or base64 (see encoding), at most max_bytes bytes. A gzip, deflate or " +
          "br body is decompressed, and its Content-Encoding and Content-Length headers are left out.",
      ),
    encoding: z
      .enum(["text", "base64"])
      .describe("How body is written: text, or base64 of the bytes (binary content; see response_encoding)."),
    truncated: z
      .boolean()
      .describe("True when the body went on past a limit and was cut (see truncated_by)."),
    truncated_by: z
      .enum(BODY_LIMITS)
      .nullable()
      .describe(
        "The limit that cut the body, null when it was read whole. max_bytes: the body, decompressed, went " +
          `on past max_bytes; raise max_bytes (up to ${MAX_BODY_BYTES / MIB} MiB) to read more. ` +
          `compressed_bytes: a compressed body went on past max_bytes + ${COMPRESSED_SLACK} downloaded while ` +
          "decoding to no more than max_bytes (padding, empty blocks or a broken stream), and body holds what " +
          "they decoded to; raise max_bytes, or send Accept-Encoding: identity to have it uncompressed.",
      ),
    bytes: z.number().int().describe("Number of body bytes returned."),
    url: sensitive(
      z
        .string()
        .describe(
          "Final URL, after redirects, with the values of its credential query members (api_key, token, ...) " +
            "[redacted], as the execution record keeps the url param.",
        ),
      "url",
    ),
    redirects: z.number().int().describe("How many redirects were followed."),
  }),
  annotations: {
    readOnly: false,
    // DELETE, PUT and PATCH can destroy what the URL names: clients confirm such tools.
    destructive: true,
    idempotent: false,
    openWorld: true,
    lightAsyncIo: true,
  },
  settings: z.strictObject({
    allowPrivateNetworks: z
      .boolean()
      .optional()
      .describe(
        "Reach loopback, private, link-local and metadata addresses too (tests, private deployments).",
      ),
  }),
  examples: [
    { query: "fetch https://example.com", params: { url: "https://example.com" } },
    {
      query: "call the GitHub API for the nodejs/node repository",
      params: {
        url: "https://api.github.com/repos/nodejs/node",
        headers: { Accept: "application/vnd.github+json" },
      },
    },
    {
      query: "POST a JSON payload to a webhook",
      params: { url: "https://httpbin.org/post", method: "POST", body: '{"event":"deploy","ok":true}' },
    },
    {
      query: "check whether a URL is up without downloading it",
      params: { url: "https://example.org/", method: "HEAD", timeout_ms: 5000 },
    },
  ],
  async warm() {
    await publicOnlyAgent();
  },
  async run(params, ctx) {
    if (params.body !== undefined && (params.method === "GET" || params.method === "HEAD")) {
      throw new SkillError(`A ${params.method} request cannot have a body: use POST, PUT or PATCH`);
    }
    refuseUnsendableHeaders(params.headers);
    // Tests and private deployments may reach internal hosts on purpose; everyone else may not.
    const allowPrivate = ctx.config.allowPrivateNetworks === true;
    const policy: AddressPolicy = allowPrivate ? anyAddress : publicAddressesOnly;
    const [{ request }, agent] = await Promise.all([
      loadUndici(),
      allowPrivate ? unrestrictedAgent() : publicOnlyAgent(),
    ]);
    const dependencies: FetchDependencies = {
      policy,
      send: (url, options) => request(url, { ...options, dispatcher: agent }),
    };

    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new SkillError(`Request timed out after ${params.timeout_ms} ms`)),
      params.timeout_ms,
    );
    const linked = anySignal([ctx.signal, timeout.signal]);
    try {
      return await fetchFollowingRedirects(
        {
          url: params.url,
          method: params.method,
          headers: requestHeaders(params.headers, params.body),
          body: params.body,
          maxBytes: params.max_bytes,
          maxRedirects: MAX_REDIRECTS,
          followRedirects: params.follow_redirects,
          signal: linked.signal,
          responseEncoding: params.response_encoding,
        },
        dependencies,
      );
    } finally {
      clearTimeout(timer);
      linked.dispose();
    }
  },
});

function requestHeaders(given: Record<string, string>, body: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...given };
  const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);
  if (!has("user-agent")) headers["user-agent"] = USER_AGENT;
  if (body !== undefined && !has("content-type")) {
    headers["content-type"] = looksLikeJson(body) ? "application/json" : "text/plain; charset=utf-8";
  }
  return headers;
}

function looksLikeJson(body: string): boolean {
  const start = body.trimStart()[0];
  if (start !== "{" && start !== "[") return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
