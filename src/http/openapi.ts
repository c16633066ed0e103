import { z } from "zod";
import { DiscoverResponseSchema, pageSchema, SkillDetailSchema } from "../core/answer-schemas.js";
import {
  DiscoverRequest,
  ExecuteRequest,
  ExecutionId,
  GetExecutionQuery,
  IdempotencyKey,
  ListExecutionsQuery,
  ListSkillsQuery,
} from "../core/api-schemas.js";
import { ERROR_CODES } from "../core/errors.js";
import { ExecutionRecordSchema } from "../core/execution/record.js";
import { withoutDialect } from "../core/json-schema-dialect.js";
import { WWW_AUTHENTICATE } from "./error-response.js";

type Json = Record<string, unknown>;

const schema = (s: z.ZodType, io: "input" | "output" = "output"): Json =>
  withoutDialect(z.toJSONSchema(s, { io, unrepresentable: "any", target: "draft-2020-12" }) as Json);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (body: Json) => ({ content: { "application/json": { schema: body } } });

const integer = { type: "integer" };
const text = { type: "string" };
/** The response headers of contract.md (Errors, Limits, REST), by name. */
const HEADERS = {
  "X-Request-Id": { description: "This request's id (error.request_id in an error body)", schema: text },
  "X-RateLimit-Limit": {
    description:
      "Requests allowed in the window with the fewest remaining (the shorter window on a tie): " +
      "the key's, or for a request without a valid key its address's failed authentications",
    schema: integer,
  },
  "X-RateLimit-Remaining": { description: "Requests left in that window", schema: integer },
  "X-RateLimit-Reset": { description: "Unix seconds when that window ends", schema: integer },
  "X-RateLimit-Window": { description: "That window's length in seconds (60 or 86400)", schema: integer },
  "RateLimit-Policy": { description: "IETF draft: both windows' limits", schema: text },
  RateLimit: {
    description: "IETF draft: both windows' remaining requests and seconds to reset",
    schema: text,
  },
  "Retry-After": {
    description: "Whole seconds to wait before retrying (as error.retry_after)",
    schema: integer,
  },
  Location: { description: "The execution's record: /v1/executions/{id}", schema: text },
  "WWW-Authenticate": { description: WWW_AUTHENTICATE, schema: text },
  Allow: { description: "The methods this path takes", schema: text },
  "Idempotent-Replayed": {
    description:
      "true: the answer of an earlier request with the same Idempotency-Key (the skill did not run again)",
    schema: { type: "string", enum: ["true"] },
  },
} as const;
type HeaderName = keyof typeof HEADERS;

const LIMIT_HEADERS: HeaderName[] = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-RateLimit-Window",
  "RateLimit-Policy",
  "RateLimit",
];

/**
 * The headers of one response: `X-Request-Id` on every one; the limit headers on every
 * answer that was counted or refused for a limit (required there), and documented on the
 * others, which carry them once the key or address was checked; `also`, required; and
 * `sometimes`, not required.
 */
function headers(counted: boolean, also: HeaderName[] = [], sometimes: HeaderName[] = []): { headers: Json } {
  const header = (name: HeaderName, required: boolean) => [name, { ...HEADERS[name], required }];
  return {
    headers: Object.fromEntries([
      header("X-Request-Id", true),
      ...LIMIT_HEADERS.map((name) => header(name, counted)),
      ...also.map((name) => header(name, true)),
      ...sometimes.map((name) => header(name, false)),
    ]),
  };
}

/** A successful answer: counted against the key's limits. */
const ok = (
  description: string,
  content: Json,
  { also = [], sometimes = [] }: { also?: HeaderName[]; sometimes?: HeaderName[] } = {},
) => ({
  description,
  ...content,
  ...headers(true, also, sometimes),
});

/** What each status means, and the headers it always carries. */
const ERROR_HEADERS: Record<number, HeaderName[]> = {
  401: ["WWW-Authenticate"],
  429: ["Retry-After"],
  503: ["Retry-After"],
};

const errors = (...listed: (keyof typeof ERROR_CODES)[]) => {
  const codes = [...new Set(listed)];
  return Object.fromEntries(
    [...new Set(codes.map((c) => ERROR_CODES[c].status))].map((status) => [
      String(status),
      {
        description: codes.filter((c) => ERROR_CODES[c].status === status).join(", "),
        ...json(ref("Error")),
        // 401 and 429 were checked against a limit (the address's, or the key's).
        ...headers(status === 401 || status === 429, ERROR_HEADERS[status]),
      },
    ]),
  );
};

/** Query-string parameters from a zod object schema. */
const queryParameters = (s: z.ZodObject) =>
  Object.entries((schema(s, "input").properties ?? {}) as Record<string, Json>).map(([name, property]) => ({
    name,
    in: "query",
    required: false,
    schema: property,
  }));

/**
 * Server-Sent Events of one execution: `status` events (data: the record) and `progress`
 * events (data: `{execution_id, progress, total?, message?}`), ending after the terminal status.
 */
const eventStream = {
  content: {
    "text/event-stream": {
      schema: {
        type: "string",
        description:
          "event: status (data: an ExecutionRecord) or progress (data: {execution_id, progress, total, message}); " +
          "the first is the record as it stands, the last the terminal record",
      },
    },
  },
};

/**
 * What Fastify refuses before any handler runs, by the kind of operation: the body of a
 * POST (every POST route reads a JSON body and nothing else, json-body.ts: 415 for
 * another type, 400 for JSON that does not parse, 413 over the limit), and a path
 * parameter too long for the router or malformed in its percent-encoding (400).
 */
const BODY_REFUSALS = ["invalid_request", "payload_too_large", "unsupported_media_type"] as const;
const PATH_PARAMETER_REFUSALS = ["invalid_request"] as const;

/**
 * Adds to every operation the refusals its kind gets before its handler (a status it
 * lists already is kept as it is), in order of status.
 */
function withRefusalsBeforeHandlers(paths: Record<string, Record<string, Json>>): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (typeof operation !== "object" || !("responses" in operation)) continue;
      const implied = [
        ...(method === "post" ? BODY_REFUSALS : []),
        ...(path.includes("{") ? PATH_PARAMETER_REFUSALS : []),
      ];
      const responses = { ...errors(...implied), ...(operation.responses as Json) };
      operation.responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)),
      );
    }
  }
}

/** The OpenAPI methods a path item may hold, as Fastify routes them. */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * The methods a path takes, as its `Allow` header lists them: its operations, and HEAD
 * beside a GET (Fastify answers it with the GET's headers).
 */
function allowedMethods(operations: Record<string, unknown>): string[] {
  const methods = METHODS.filter((method) => method in operations).map((m) => m.toUpperCase());
  return methods.includes("GET") && !methods.includes("HEAD") ? [...methods, "HEAD"] : methods;
}

/**
 * Every other method on a path is refused 405 with `Allow` (contract.md), before its
 * body is read. OpenAPI has no place for what a method without an operation answers:
 * the path's description says it, pointing at `components.responses.MethodNotAllowed`.
 */
function describeOtherMethods(paths: Record<string, Record<string, unknown>>): void {
  for (const operations of Object.values(paths)) {
    operations.description =
      `Any other method is answered 405 method_not_allowed (#/components/responses/MethodNotAllowed) ` +
      `with Allow: ${allowedMethods(operations).join(", ")}.`;
  }
}

const idParameter = { name: "id", in: "path", required: true, schema: schema(ExecutionId, "input") };
/**
 * What any `/v1` operation may answer: a request refused before routing (not HTTP/1.1, no
 * Host or two, too many header lines: client-error.ts, host-header.ts, header-lines.ts), a
 * refused key or limit, a request that did not arrive in time, a service shutting down or at
 * capacity (or counting nowhere, Redis down under SKILLPORT_REDIS_DOWN=refuse), a bug.
 */
const common = [
  "invalid_request",
  "missing_api_key",
  "invalid_api_key",
  "request_timeout",
  "rate_limit_exceeded",
  "service_unavailable",
  "internal_error",
] as const;

/**
 * The OpenAPI 3.1 document of `/v1`, generated from the same zod schemas that validate
 * requests (built once, at first use).
 */
export function buildOpenApiDocument(version: string): Json {
  const record = ref("ExecutionRecord");
  return withDefinitionsInComponents({
    openapi: "3.1.0",
    info: { title: "skillport", version, description: "Find and run skills for AI agents." },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: sk_<env>_…" } },
      schemas: {
        ExecutionRecord: schema(ExecutionRecordSchema),
        ExecutionPage: schema(pageSchema(ExecutionRecordSchema)),
        DiscoverResponse: schema(DiscoverResponseSchema),
        SkillPage: schema(pageSchema(SkillDetailSchema)),
        SkillDetail: schema(SkillDetailSchema),
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message", "request_id"],
              properties: {
                code: { type: "string", enum: Object.keys(ERROR_CODES) },
                message: { type: "string" },
                request_id: { type: "string" },
                retry_after: { type: "integer", description: "Seconds; on 429 and 503" },
                execution_id: {
                  type: "string",
                  description:
                    "On 409 idempotency_in_progress: the execution still running under the Idempotency-Key",
                },
                details: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: { path: { type: "string" }, message: { type: "string" } },
                  },
                },
              },
            },
          },
        },
      },
      responses: {
        MethodNotAllowed: {
          description: "method_not_allowed: the path does not take this method; Allow lists those it takes",
          ...json(ref("Error")),
          // Refused after admission: the key was checked and counted.
          ...headers(true, ["Allow"]),
        },
      },
    },
    paths: withWhatEveryPathAnswers({
      "/v1/discover": {
        post: {
          summary: "Rank skills for a free-text query",
          requestBody: { required: true, ...json(schema(DiscoverRequest, "input")) },
          responses: {
            "200": ok("Ranked skills, best first", json(ref("DiscoverResponse"))),
            ...errors("invalid_request", "payload_too_large", "unsupported_media_type", ...common),
          },
        },
      },
      "/v1/execute": {
        post: {
          summary: "Execute a skill (sync by default, async with async:true)",
          description:
            "A sync call whose Accept prefers `text/event-stream` to JSON (`Accept: text/event-stream`) is answered with the execution's events, as " +
            "GET /v1/executions/{id}/events sends them: its record first (`status`), then `progress` and " +
            "the skill's log lines (`log`: {execution_id, level, message, fields}), ending after the terminal `status`. One request, counted once; refusals before the run " +
            "are the same JSON errors.",
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "A repeat with the same key and body within 24 hours answers the first execution's " +
                "record instead of running the skill again (scoped to the API key)",
              schema: schema(IdempotencyKey, "input"),
            },
            {
              name: "Accept",
              in: "header",
              required: false,
              description:
                "text/event-stream, preferred to application/json: a sync call's events instead of its terminal record " +
                "(an async call answers its record whatever Accept says)",
              schema: { type: "string" },
            },
          ],
          requestBody: { required: true, ...json(schema(ExecuteRequest, "input")) },
          responses: {
            "200": ok(
              "The terminal record (success may be false); with Accept: text/event-stream, the execution's events",
              { content: { ...json(record).content, ...eventStream.content } },
              { sometimes: ["Idempotent-Replayed"] },
            ),
            "202": ok("Accepted; the queued record, polled at Location", json(record), {
              also: ["Location"],
              sometimes: ["Idempotent-Replayed"],
            }),
            ...errors(
              "invalid_request",
              "insufficient_scope",
              "skill_not_found",
              "idempotency_in_progress",
              "payload_too_large",
              "unsupported_media_type",
              "invalid_params",
              "idempotency_key_reused",
              "concurrency_limit_exceeded",
              ...common,
            ),
          },
        },
      },
      "/v1/executions": {
        get: {
          summary: "List executions, newest first",
          parameters: queryParameters(ListExecutionsQuery),
          responses: {
            "200": ok("A page of records, newest first", json(ref("ExecutionPage"))),
            ...errors("invalid_request", "insufficient_scope", ...common),
          },
        },
      },
      "/v1/executions/{id}": {
        get: {
          summary: "One execution; ?wait=N long-polls until it is terminal",
          parameters: [idParameter, ...queryParameters(GetExecutionQuery)],
          responses: {
            "200": ok("The record, terminal or as it stands when the wait ends", json(record)),
            ...errors("invalid_request", "insufficient_scope", "execution_not_found", ...common),
          },
        },
      },
      "/v1/executions/{id}/cancel": {
        post: {
          summary: "Cancel a running or queued execution",
          parameters: [idParameter],
          responses: {
            "200": ok("The cancelled record", json(record)),
            ...errors("insufficient_scope", "execution_not_found", "execution_not_cancellable", ...common),
          },
        },
      },
      "/v1/executions/{id}/events": {
        get: {
          summary: "Server-Sent Events: status and progress, ending after the terminal status",
          parameters: [idParameter],
          responses: {
            "200": ok("The execution's events", eventStream),
            ...errors("insufficient_scope", "execution_not_found", ...common),
          },
        },
      },
      "/v1/skills": {
        get: {
          summary: "The catalog",
          parameters: queryParameters(ListSkillsQuery),
          responses: {
            "200": ok("A page of the catalog", json(ref("SkillPage"))),
            ...errors("invalid_request", ...common),
          },
        },
      },
      "/v1/skills/{skill_id}": {
        get: {
          summary: "One skill with its params and result schemas",
          parameters: [{ name: "skill_id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": ok("The skill", json(ref("SkillDetail"))),
            ...errors("skill_not_found", ...common),
          },
        },
      },
      "/v1/openapi.json": {
        get: {
          summary: "This document",
          description:
            "Needs no key. One sent with it is checked and counted like on any /v1 request (contract.md, " +
            '"Limits"): a key over its limit, or a wrong key from an address over its limit of failed ' +
            "authentications, is refused 429.",
          security: [],
          responses: {
            "200": ok("The OpenAPI 3.1 document", json({ type: "object" })),
            // No 401: a wrong key is answered as if none was sent, unless its address is over its limit.
            ...errors(...common.filter((code) => code !== "missing_api_key" && code !== "invalid_api_key")),
          },
        },
      },
    }),
  });
}

/** `paths` with what every operation of a kind, and every path, answers besides its own (see above). */
function withWhatEveryPathAnswers(paths: Record<string, Record<string, Json>>): Json {
  withRefusalsBeforeHandlers(paths);
  describeOtherMethods(paths);
  return paths;
}

const DEFINITION = "#/$defs/";
const COMPONENT = "#/components/schemas/";

/**
 * zod puts a schema that has an id (ExecutionRecord does) in `$defs` and refers to it as
 * `#/$defs/<id>`. Inside an OpenAPI document that pointer resolves against the document's
 * root, where there is no `$defs`: every such definition moves to `components.schemas`,
 * and the references follow it.
 */
function withDefinitionsInComponents(doc: Json): Json {
  const components = (doc.components as { schemas: Record<string, unknown> }).schemas;
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (node === null || typeof node !== "object") return node;
    const { $defs, ...rest } = node as Json;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Json)) components[id] = hoist(definition);
    return Object.fromEntries(
      Object.entries(rest).map(([key, value]) => [
        key,
        key === "$ref" && typeof value === "string" && value.startsWith(DEFINITION)
          ? COMPONENT + value.slice(DEFINITION.length)
          : hoist(value),
      ]),
    );
  };
  const { components: _, ...rest } = doc;
  const hoisted = hoist(rest) as Json;
  for (const [name, component] of Object.entries({ ...components })) {
    const moved = hoist(component) as Json;
    // A component that only pointed at its own definition is that definition, now hoisted.
    if (moved.$ref !== COMPONENT + name) components[name] = moved;
  }
  return { ...hoisted, components: doc.components };
}
