import { isInitializeRequest, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Admission } from "../../core/access.js";
import { ServiceError, shuttingDownError } from "../../core/errors.js";
import type { Skillport } from "../../core/skillport.js";
import { httpBodyProblem } from "../../mcp/malformed-message.js";
import { paramsRefusal } from "../../mcp/protocol-guard.js";
import { bearerOf, explainedAuthError, keyOf } from "../admission.js";
import { sendError } from "../error-response.js";
import { answerWithLimit, setAnsweredLimitHeaders } from "../rate-limit-headers.js";
import { HostGuard, type HostGuardOptions } from "./host-guard.js";
import {
  jsonRpcRequestIds,
  type McpSession,
  type McpSessionOptions,
  McpSessions,
  requestIdKey,
} from "./mcp-sessions.js";

export type McpHttpOptions = McpSessionOptions & HostGuardOptions;

const SESSION_HEADER = "mcp-session-id";

/**
 * `/mcp`: MCP over Streamable HTTP on the same core as `/v1` (contract.md, "MCP
 * surface"). Every request carries the bearer key and passes the DNS-rebinding guard;
 * only `tools/call` counts against the key's limits (see `countToolCalls`).
 */
export function registerMcpRoute(
  app: FastifyInstance,
  skillport: Skillport,
  options: McpHttpOptions,
): { close(executionsEnded?: Promise<unknown>): Promise<void> } {
  const guard = new HostGuard(options);
  if (!guard.checksHost) {
    app.log.warn(
      { bind_host: options.bindHost },
      "/mcp: listening beyond loopback with no SKILLPORT_ALLOWED_HOSTS: the Host header is not checked against DNS rebinding",
    );
  }
  const sessions = new McpSessions(skillport, options);

  app.route({
    method: ["GET", "POST", "DELETE"],
    url: "/mcp",
    // No HEAD beside the GET: the transport answers HEAD 405 itself, and `Allow` must not
    // name a method the endpoint refuses.
    exposeHeadRoute: false,
    // The guard and the key before the body is read, as `/v1` admits a request: a refused
    // request's body is never read, and one sent with `Expect: 100-continue` is refused
    // without a `100 Continue` (expect-continue.ts).
    onRequest: async (request, reply) => {
      guard.check(request.headers.host, request.headers.origin);
      const bearer = bearerOf(request);
      const authenticated = await skillport.access.authenticate(bearer, request.ip);
      if (!authenticated.admitted) {
        if (authenticated.limit) answerWithLimit(request, authenticated.limit);
        return sendError(
          request,
          reply,
          explainedAuthError(request, bearer, authenticated.error),
          skillport.errorOf,
        );
      }
      request.apiKey = authenticated.key;
      // The key's limits as they stand: a tools/call is counted once its body is read.
      const limitStatus = () => skillport.access.limitStatus(authenticated.key);
      answerWithLimit(request, await limitStatus(), limitStatus);
    },
    handler: async (request, reply) => {
      // Refused as stdio refuses such a line, saying what is wrong (see httpBodyProblem).
      const bodyProblem = request.method === "POST" ? httpBodyProblem(request.body) : undefined;
      if (bodyProblem) throw new ServiceError("invalid_request", { message: bodyProblem });
      const session = await sessionFor(request, sessions);
      session.key = keyOf(request);
      session.lastUsed = Date.now();
      const requestIds = request.method === "POST" ? jsonRpcRequestIds(request.body) : [];
      const reused = requestIds.find((id) => session.idsInFlight.has(id));
      if (reused !== undefined) {
        throw new ServiceError("invalid_request", {
          message: `The request id ${reused.slice(reused.indexOf(":") + 1)} belongs to a request of this session still being answered: JSON-RPC ids must be unique among requests in flight.`,
        });
      }
      const countedCalls = await countToolCalls(request, skillport);
      await setAnsweredLimitHeaders(request, reply);
      reply.hijack();
      // The transport writes the response itself: give it the headers set so far (the
      // request id, the limits), which Fastify would have sent.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      const handle = () => session.transport.handleRequest(request.raw, reply.raw, request.body);
      // A GET holds the session's event stream open for as long as the client likes: it
      // keeps the session in use no more than the rest of the connection does.
      try {
        if (request.method === "GET") await handle();
        else await sessions.answer(session, handle, requestIds, countedCalls);
      } finally {
        session.lastUsed = Date.now();
        sessions.discardIfUnopened(session);
      }
      return reply;
    },
  });
  // Closed by the server's shutdown, which knows when the executions have ended.
  return { close: (executionsEnded) => sessions.closeAll(executionsEnded) };
}

/**
 * Counts each `tools/call` in the request's body against its key, by request id, for the
 * tool layer to take (`McpSession.countedCalls`): counted here, before the transport writes
 * the response's headers (an event stream's, at once), those headers include the calls, as
 * a `/v1` response's include its request. A call refused for the limit is answered with
 * that refusal by the tool layer. A call the protocol refuses (`paramsRefusal`: arguments
 * that are no object) counts in no mode, and is not counted here either.
 */
async function countToolCalls(
  request: FastifyRequest,
  skillport: Skillport,
): Promise<Map<string, Admission>> {
  const counted = new Map<string, Admission>();
  if (request.method !== "POST") return counted;
  const key = keyOf(request);
  for (const message of Array.isArray(request.body) ? request.body : [request.body]) {
    if (!isJSONRPCRequest(message) || message.method !== "tools/call" || paramsRefusal(message)) continue;
    const admission = await skillport.access.charge(key);
    counted.set(requestIdKey(message.id), admission);
    if (admission.limit) answerWithLimit(request, admission.limit);
  }
  return counted;
}

/** The request's session: the one its header names (of the same key), or a new one for `initialize`. */
async function sessionFor(request: FastifyRequest, sessions: McpSessions): Promise<McpSession> {
  const key = request.apiKey;
  if (!key) throw new Error("/mcp reached without an authenticated key");
  // A request admitted just before shutdown finds the sessions closed: it is told so, as
  // REST is (503), not that its session expired, which would send the client to start a
  // new one on a server that is going away.
  if (sessions.closed) throw shuttingDownError();
  const id = request.headers[SESSION_HEADER];
  if (typeof id === "string") {
    const session = sessions.get(id);
    // Another key's session is indistinguishable from an expired one.
    if (!session || session.keyId !== key.id) {
      throw new ServiceError("not_found", {
        message:
          "No MCP session has this id (it expired or was closed): send initialize without Mcp-Session-Id.",
      });
    }
    return session;
  }
  if (request.method === "POST" && isMalformedInitialize(request.body)) {
    throw new ServiceError("invalid_request", {
      message:
        "The initialize request is malformed: its params need protocolVersion, capabilities and clientInfo (name and version).",
    });
  }
  if (Array.isArray(request.body) && request.body.some((message) => message?.method === "initialize")) {
    throw new ServiceError("invalid_request", {
      message: "An initialize request is sent on its own, not in a batch: send it alone to start a session.",
    });
  }
  if (request.method !== "POST" || !isInitializeRequest(request.body)) {
    throw new ServiceError("invalid_request", {
      message: "No Mcp-Session-Id header: start a session with an initialize request first.",
    });
  }
  if (!sessions.makeRoomFor(key.id)) {
    throw new ServiceError("service_unavailable", {
      message: "Too many open MCP sessions, and none this key may take is idle; retry later.",
      retryAfterSeconds: 30,
    });
  }
  return sessions.open(key);
}

/** A request that means to initialize (its method says so) but is no valid initialize. */
function isMalformedInitialize(body: unknown): boolean {
  const method = (body as { method?: unknown } | null)?.method;
  return method === "initialize" && !isInitializeRequest(body);
}
