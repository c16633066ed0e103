import { type IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from "fastify";
import { sharedAbortController } from "../core/any-signal.js";
import { ServiceError, shuttingDownError } from "../core/errors.js";
import { randomBase62 } from "../core/ids.js";
import type { Skillport } from "../core/skillport.js";
import { admitRequest, ensureRateLimitHeaders } from "./admission.js";
import { clientErrorAnswerer } from "./client-error.js";
import { registerDashboard } from "./dashboard/plugin.js";
import { sendError } from "./error-response.js";
import { continueWhenBodyIsRead } from "./expect-continue.js";
import { headerLinesError, MAX_HEADER_LINES } from "./header-lines.js";
import { hostHeaderError } from "./host-header.js";
import { parseJsonBodies } from "./json-body.js";
import { lazyRequestLogger } from "./lazy-request-logger.js";
import { type McpHttpOptions, registerMcpRoute } from "./mcp/mcp-route.js";
import { collectRoutes, registerMethodNotAllowed, routeEveryMethod } from "./method-not-allowed.js";
import { registerMetrics } from "./metrics.js";
import { logAnswer, logIfClientLeaves } from "./request-log.js";
import { registerDiscoverRoute } from "./routes/discover.js";
import { registerExecuteRoute } from "./routes/execute.js";
import { registerExecutionRoutes } from "./routes/executions.js";
import { registerHealthRoutes } from "./routes/health.js";
import { registerOpenApiRoute } from "./routes/openapi.js";
import { registerSkillRoutes } from "./routes/skills.js";

export interface HttpServerOptions {
  logger: FastifyBaseLogger;
  maxBodyBytes: number;
  /** Headers and body of a request must arrive within this (slow clients hold no socket for ever). */
  requestTimeoutMs: number;
  /** The proxies whose `X-Forwarded-*` headers are believed (see config.ts). */
  trustProxy: false | number | string[];
  version: string;
  /** Where the dashboard's one-time sign-in links go (default: stderr). */
  announceSignInLink?: (url: string) => void;
  /** `/mcp`: its tools, sessions and DNS-rebinding guard. */
  mcp: Omit<McpHttpOptions, "version" | "logger">;
}

export interface HttpServer {
  app: FastifyInstance;
  /**
   * Starts answering requests, and prints the dashboard's first sign-in link. Until then (the
   * port is bound first, so that a server that cannot listen has started nothing) every
   * request is answered 503 with `Retry-After`.
   */
  open(): void;
  /**
   * Stops accepting requests (new ones get 503) and closes. Long polls, event streams and
   * `/mcp` tool calls go on until `executionsEnded` settles (the executions this process runs have ended,
   * finished or interrupted: theirs then end with the terminal status, as the contract
   * says they do), and the rest are ended then; at once without it.
   */
  close(executionsEnded?: Promise<unknown>): Promise<void>;
}

/**
 * Fastify's form of the trusted proxies. A number of hops becomes a function of the hop
 * (0 is the connected peer), as Fastify itself takes a number for "trust none".
 */
function trustProxyOption(
  trusted: false | number | string[],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trusted === "number" ? (_address, hop) => hop < trusted : trusted;
}

/** The REST surface: translates HTTP to core calls and the core's answers and errors back. */
export function buildHttpServer(skillport: Skillport, options: HttpServerOptions): HttpServer {
  const app = Fastify({
    loggerInstance: options.logger,
    // One line per request (request-log.ts) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: options.maxBodyBytes,
    // A request must arrive whole in time, its headers sooner (slowloris); Node checks
    // every second instead of every 30 s so a slow client is cut off close to the limit.
    requestTimeout: options.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(10_000, options.requestTimeoutMs),
      connectionsCheckingInterval: 1_000,
      // Node would answer an HTTP/1.1 request without Host itself, with an empty 400:
      // `onRequest` refuses it in the contract's envelope instead.
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorAnswerer((address) => skillport.access.addressStatus(address)),
    trustProxy: trustProxyOption(options.trustProxy),
    genReqId: () => `req_${randomBase62(20)}`,
    return503OnClosing: false,
    // Path parameters are bounded by the schemas of their routes (an execution id's is
    // get_execution's), which name the parameter; the router's own bound (100 characters)
    // refused an id of 101 to 200 that get_execution looked up, saying only "too long".
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: Number.MAX_SAFE_INTEGER },
    // Refusals Fastify makes before routing (a malformed percent-encoding) skip the hooks:
    // give them the same admission and error envelope.
    frameworkErrors: (err, request, reply) => {
      reply.header("x-request-id", request.id);
      const unavailable = unavailableNow();
      if (unavailable) {
        sendError(request, reply, unavailable, skillport.errorOf);
        return;
      }
      // No `onSend` either: the limit headers are set here, as it would.
      const answer = (error: unknown) =>
        ensureRateLimitHeaders(skillport, request, reply, () =>
          sendError(request, reply, error, skillport.errorOf),
        );
      // Too many header lines before admission: a late Authorization would read as none.
      const tooMany = headerLinesError(request);
      if (tooMany) answer(tooMany);
      else admitRequest(skillport, request).then((refusal) => answer(refusal ?? err), answer);
    },
  });
  // Lines past it would be dropped unseen: one more is kept, so that such a request is refused.
  app.server.maxHeadersCount = MAX_HEADER_LINES + 1;
  // Node answers an `Expect` other than 100-continue with a bare 417 of its own (no envelope,
  // request id, limit headers or log line) unless it is asked. RFC 9110 §10.1.1 lets a
  // server ignore an expectation it does not know (a 417 is a MAY), and the contract has no
  // 417: the request is served as if the header were absent, through Fastify like any other.
  app.server.on("checkExpectation", (req, res) => app.server.emit("request", req, res));
  // Node answers `Expect: 100-continue` with a 100 on arrival unless it is asked, even to a
  // request refused without reading its body (401, 413, 415): the 100 waits for the body's
  // first read (expect-continue.ts).
  app.server.on("checkContinue", (req, res) => {
    continueWhenBodyIsRead(req, res);
    app.server.emit("request", req, res);
  });
  // Node drops a CONNECT without a word unless it is asked: it is answered as any other
  // method the router does not serve (404 for a host:port target, 405 with Allow on a known
  // path), in the envelope, logged, and the connection closed, as no tunnel follows.
  app.server.on("connect", (req: IncomingMessage, socket: Socket) => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on("finish", () => socket.destroySoon());
    app.server.emit("request", req, res);
  });
  const shutdown = sharedAbortController();
  let opened = false;
  let closing = false;
  /** Why no request is served now (starting, or shutting down); undefined when they are. */
  function unavailableNow(): ServiceError | undefined {
    if (opened && !closing) return undefined;
    if (closing) return shuttingDownError();
    return new ServiceError("service_unavailable", {
      message: "The service is starting.",
      retryAfterSeconds: 1,
    });
  }

  // A method the router does not know on a known path is 405, not 404 (method-not-allowed.ts).
  routeEveryMethod(app);

  // Only JSON bodies are accepted (contract.md: anything else is 415).
  app.removeContentTypeParser(["text/plain"]);
  parseJsonBodies(app);

  // Hooks run on every request: one of each kind, and callback-style where nothing is
  // awaited, since each async hook costs a promise and a microtask turn.
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    logIfClientLeaves(request, reply);
    // Starting or shutting down, then more header lines than are kept, then a missing or
    // doubled Host header (docs/lifecycle.md, step 3).
    const refused = unavailableNow() ?? headerLinesError(request) ?? hostHeaderError(request);
    if (refused) return sendError(request, reply, refused, skillport.errorOf);
    // Returning the reply tells Fastify the request was answered here.
    const refusal = await admitRequest(skillport, request);
    if (refusal) return sendError(request, reply, refusal, skillport.errorOf);
    // An unknown path is 404 before its body is read (docs/lifecycle.md): Fastify would parse
    // it first, and a typo'd path answer 400 for its JSON or 413 for its size. The dashboard
    // answers its own unknown paths, as pages.
    if (request.is404 && !isDashboardPath(request.url))
      return sendError(request, reply, notFound(request), skillport.errorOf);
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    // While closing, an answer ends its connection: a client's keep-alive socket would
    // otherwise hold `close()` (and the process) open past the shutdown deadline. So does
    // an answer sent before the request's body has all arrived (a refusal at admission):
    // Node would wait for the rest of the body to reuse the connection, and answer a body
    // that stalls a second time, with a 408 nobody asked for.
    if (closing || !request.raw.complete) reply.header("connection", "close");
    ensureRateLimitHeaders(skillport, request, reply, () => done(null, payload));
  });
  app.addHook("onResponse", (request, reply, done) => {
    logAnswer(request, reply);
    done();
  });

  const routes = collectRoutes(app);

  registerHealthRoutes(app, skillport);
  registerMetrics(app, skillport);
  registerDiscoverRoute(app, skillport);
  registerExecuteRoute(app, skillport);
  registerExecutionRoutes(app, skillport, shutdown.signal);
  registerSkillRoutes(app, skillport);
  const dashboard = registerDashboard(app, skillport, {
    version: options.version,
    announceSignInLink: options.announceSignInLink,
  });
  const mcp = registerMcpRoute(app, skillport, {
    ...options.mcp,
    version: options.version,
    logger: options.logger,
  });
  registerOpenApiRoute(app, options.version);
  // After the last route: every path registered above refuses its other methods.
  registerMethodNotAllowed(app, routes);

  app.setNotFoundHandler(async (request, reply) =>
    sendError(request, reply, notFound(request), skillport.errorOf),
  );
  app.setErrorHandler(async (err, request, reply) => sendError(request, reply, err, skillport.errorOf));

  return {
    app,
    open() {
      opened = true;
      dashboard.announceFirstLink();
    },
    async close(executionsEnded) {
      closing = true;
      const ended = Promise.resolve(executionsEnded).catch(() => {});
      void ended.then(() => shutdown.abort());
      // Streams are hijacked past `onSend`: close every socket as soon as it falls idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        // `/mcp` sessions close once their calls are answered; the server's close waits for
        // their connections meanwhile, as it does for REST requests in flight.
        await Promise.all([mcp.close(ended), app.close()]);
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

/**
 * `not_found` for an unknown path (contract.md). The root is no page (the contract names
 * none there, and API clients keep this answer), but it is the address `npm start` says the
 * server serves on, so a person opening it is told where to go.
 */
function notFound(request: FastifyRequest): ServiceError {
  const path = request.url.split("?")[0];
  const pointer =
    path === "/"
      ? ". The dashboard is at /dashboard; the API is under /v1, described at /v1/openapi.json"
      : "";
  return new ServiceError("not_found", { message: `No such path: ${request.method} ${path}${pointer}` });
}

function isDashboardPath(url: string): boolean {
  return url === "/dashboard" || url.startsWith("/dashboard/") || url.startsWith("/dashboard?");
}
