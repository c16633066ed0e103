import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { FastifyRequest } from "fastify";
import type { RateLimitStatus } from "../core/limits/rate-limit.js";

/** The request a connection is receiving whose key was admitted, and how to read that key's limit. */
interface Receiving {
  message: IncomingMessage;
  keyStatus: () => Promise<RateLimitStatus>;
}

const receivingByConnection = new WeakMap<Socket, Receiving>();

/**
 * Notes that `request`'s key was admitted (and counted) while its body may still be on
 * its way: if it never arrives in time, Node answers from the connection (client-error.ts),
 * and that 408 is to describe the key's limit, as the response to a request made with a
 * valid key does (contract.md, "Limits"), not the address's.
 */
export function noteAdmittedKey(request: FastifyRequest, keyStatus: () => Promise<RateLimitStatus>): void {
  receivingByConnection.set(request.raw.socket, { message: request.raw, keyStatus });
}

/**
 * How to read the limit of the key admitted for the request `connection` is still
 * receiving; undefined when its request's key was not admitted (its headers still coming,
 * no key or a wrong one) or when the request it was admitted for was received whole (a
 * keep-alive connection's next request is another one).
 */
export function receivingKeyStatus(connection: Socket): (() => Promise<RateLimitStatus>) | undefined {
  const receiving = receivingByConnection.get(connection);
  return receiving && !receiving.message.complete ? receiving.keyStatus : undefined;
}
