import type { FastifyReply, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** The execution the request made or named, for its log line (set by the execution routes). */
    executionId?: string;
    /** The key of a request refused for the key's rate limit, which admitted no key (`apiKey`). */
    limitedKeyId?: string;
  }
}

const LEVELS_WRITING_INFO = new Set(["trace", "debug", "info"]);

/**
 * One line per request (Fastify's own two are turned off): when it is answered, or when its
 * client goes away first (an agent's short HTTP timeout: the line still names the execution
 * it made). Every request passes here, so nothing is built, listened to or allocated when
 * info lines are not written.
 */
export function logAnswer(request: FastifyRequest, reply: FastifyReply): void {
  if (!LEVELS_WRITING_INFO.has(request.log.level)) return;
  writeLine(request, { status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 });
}

/**
 * Logs the request if its response closes before it finished: its client went away, and
 * `onResponse` (`logAnswer`) never runs. Call on arrival (`onRequest`).
 */
export function logIfClientLeaves(request: FastifyRequest, reply: FastifyReply): void {
  if (!LEVELS_WRITING_INFO.has(request.log.level)) return;
  reply.raw.once("close", () => {
    if (!reply.raw.writableEnded) writeLine(request, undefined);
  });
}

function writeLine(request: FastifyRequest, answered: { status: number; ms: number } | undefined): void {
  request.log.info(
    {
      method: request.method,
      // An unmatched path is logged as sent; a key a client put in it is redacted as the
      // line is written (createLogger).
      path: request.routeOptions.url ?? request.url.split("?")[0],
      ...(answered ?? { aborted: true }),
      key_id: request.apiKey?.id ?? request.limitedKeyId,
      // The client's address as SKILLPORT_TRUST_PROXY resolves it: the one the
      // failed-authentication limit counts, so that a run of 401s and 429s names who.
      ip: request.ip,
      execution_id: request.executionId,
    },
    "request",
  );
}
